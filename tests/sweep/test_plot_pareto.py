#!/usr/bin/python3
"""pareto_front of scripts/plot_sweep.py on hand-made points (ties, duplicates, NaN), and against a
brute-force dominance check on random points with many ties. Usage: test_plot_pareto.py SRC_DIR"""
import math
import random
import sys

sys.path.insert(0, sys.argv[1] + "/scripts")
try:
    import plot_sweep
except ImportError as e:  # numpy or matplotlib missing
    print("SKIP: %s" % e)
    sys.exit(77)

fails = 0


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL: " + msg)


def brute(xs, ys):
    ok = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        if math.isnan(x) or math.isnan(y):
            continue
        dom = any(xj <= x and yj <= y and (xj < x or yj < y)
                  for xj, yj in zip(xs, ys) if not (math.isnan(xj) or math.isnan(yj)))
        if not dom:
            ok.append(i)
    return ok


#       A       B       C       D (=B)  E       F (=E)  G         H        I       J            K (=A)  L
pts = [(1, 5), (2, 3), (3, 3), (2, 3), (4, 1), (4, 1), (5, 0.5), (0.5, 10), (3, 4), (math.nan, 0), (1, 5), (1, 6)]
xs, ys = [p[0] for p in pts], [p[1] for p in pts]
front = plot_sweep.pareto_front(xs, ys)
check(sorted(front) == [0, 1, 3, 4, 5, 6, 7, 10], "hand-made front: got %s" % sorted(front))
check([xs[i] for i in front] == sorted(xs[i] for i in front), "front sorted by cost")
check(plot_sweep.pareto_front([], []) == [], "empty input")
check(plot_sweep.pareto_front([3], [2]) == [0], "one point")
check(plot_sweep.pareto_front([math.nan], [1]) == [], "a NaN point is never on the front")
rng = random.Random(5)
for trial in range(300):
    n = rng.randint(1, 40)
    xs = [float(rng.randint(0, 8)) for _ in range(n)]
    ys = [float(rng.randint(0, 8)) if rng.random() > 0.05 else math.nan for _ in range(n)]
    got, want = sorted(plot_sweep.pareto_front(xs, ys)), brute(xs, ys)
    if got != want:
        check(False, "random trial %d: %s vs brute force %s on %s" % (trial, got, want, list(zip(xs, ys))))
        break
print("pareto_front: %s" % ("ok" if not fails else "%d failures" % fails))
sys.exit(1 if fails else 0)
