/* Helper for test_dump_qkv.py: loads a workload YAML file written by scripts/dump_qkv.py through
 * the normal configuration and workload path and prints what the engine would receive. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "workload.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lstrace_check WORKLOAD.yaml [key=value...]\n");
        return 2;
    }
    static char set[4200];
    snprintf(set, sizeof set, "workload.file=%s", argv[1]);
    const char *ov[16] = {set};
    int n = 1;
    for (int i = 2; i < argc && n < 16; ++i) ov[n++] = argv[i];
    static ls_config cfg;
    static ls_config_diag d;
    if (ls_config_load(&cfg, NULL, ov, n, &d)) {
        fprintf(stderr, "%s\n", d.message);
        return 2;
    }
    ls_attn_inputs in;
    ls_workload_info info;
    char err[2048];
    if (ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    double s[3] = {0, 0, 0};
    size_t nq = (size_t)in.batch * in.heads_q * in.seq_q * in.dim, nk = (size_t)in.batch * in.heads_kv * in.seq_k * in.dim;
    for (size_t i = 0; i < nq; ++i) s[0] += in.q[i];
    for (size_t i = 0; i < nk; ++i) s[1] += in.k[i], s[2] += in.v[i];
    printf("shape %d %d %d %d %d %d causal %d\n", in.batch, in.heads_q, in.heads_kv, in.seq_q, in.seq_k, in.dim, in.causal);
    printf("sums %.17g %.17g %.17g\n", s[0], s[1], s[2]);
    printf("first %.9g %.9g %.9g\n", in.q[0], in.k[0], in.v[0]);
    printf("maxlogit %.9g\n", info.max_abs_logit);
    ls_attn_inputs_release(&in);
    return 0;
}
