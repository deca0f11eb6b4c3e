/* Traced inputs: Q, K, V from three .npy files or one .safetensors file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "npy.h"
#include "safetensors.h"
#include "workload_internal.h"

typedef struct {
    ls_npy_array a[3];
} trace_owner;

static void trace_release(ls_attn_inputs *in)
{
    trace_owner *o = in->owner;
    if (o) {
        for (int i = 0; i < 3; ++i) ls_npy_free(&o->a[i]);
        free(o);
    }
    in->q = in->k = in->v = NULL;
    in->owner = NULL;
    in->release = NULL;
}

static void resolve(const char *base_dir, const char *p, char *out, size_t len)
{
    if (p[0] == '/' || !base_dir || !*base_dir) snprintf(out, len, "%s", p);
    else snprintf(out, len, "%s/%s", base_dir, p);
}

/* [batch, heads, seq, dim] from a rank-3 or rank-4 array. */
static int dims4(const ls_npy_array *a, const char *key, const char *what, int64_t d[4], char *err, size_t errlen)
{
    char sh[160];
    ls_npy_shape_str(a->shape, a->ndim, sh, sizeof sh);
    if (a->ndim == 4) memcpy(d, a->shape, 4 * sizeof(int64_t));
    else if (a->ndim == 3) {
        d[0] = 1;
        memcpy(d + 1, a->shape, 3 * sizeof(int64_t));
    } else {
        ls_io_err(err, errlen, "%s: %s: expected shape [batch, heads, seq, dim] or [heads, seq, dim], got %s", key, what, sh);
        return -1;
    }
    for (int i = 0; i < 4; ++i)
        if (d[i] < 1 || d[i] > (1 << 24)) {
            ls_io_err(err, errlen, "%s: %s: shape %s has an empty or oversized dimension", key, what, sh);
            return -1;
        }
    return 0;
}

int ls_workload_trace_load(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                  char *err, size_t errlen)
{
    const ls_config_workload *w = &cfg->workload;
    trace_owner *o = calloc(1, sizeof *o);
    if (!o) {
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    static const char *const keys_npy[3] = {"workload.trace.q", "workload.trace.k", "workload.trace.v"};
    char what[3][LS_CONFIG_PATH_MAX + LS_CONFIG_NAME_MAX + 16];
    const char *keys[3];
    int rc = -1;
    if (w->trace.safetensors[0]) {
        char p[2 * LS_CONFIG_PATH_MAX + 2];
        resolve(base_dir, w->trace.safetensors, p, sizeof p);
        ls_safetensors_file *f;
        char m[600];
        if (ls_safetensors_open(p, &f, m, sizeof m)) {
            ls_io_err(err, errlen, "workload.trace.safetensors: %s", m);
            goto done;
        }
        const char *names[3] = {w->trace.q_name, w->trace.k_name, w->trace.v_name};
        static const char *const keys_st[3] = {"workload.trace.q_name", "workload.trace.k_name", "workload.trace.v_name"};
        for (int i = 0; i < 3; ++i) {
            keys[i] = keys_st[i];
            ls_io_err(what[i], sizeof what[i], "%s['%s']", p, names[i]);
            if (ls_safetensors_load_f32(f, names[i], &o->a[i], m, sizeof m)) {
                ls_io_err(err, errlen, "%s: %s", keys_st[i], m);
                ls_safetensors_close(f);
                goto done;
            }
        }
        ls_safetensors_close(f);
        snprintf(info->source, sizeof info->source, "%s", p);
    } else {
        const char *paths[3] = {w->trace.q, w->trace.k, w->trace.v};
        size_t pos = 0;
        for (int i = 0; i < 3; ++i) {
            keys[i] = keys_npy[i];
            resolve(base_dir, paths[i], what[i], sizeof what[i]);
            char m[600];
            if (ls_npy_load_f32(what[i], &o->a[i], m, sizeof m)) {
                ls_io_err(err, errlen, "%s: %s", keys_npy[i], m);
                goto done;
            }
            if (pos < sizeof info->source)
                pos += (size_t)snprintf(info->source + pos, sizeof info->source - pos, "%s%s", i ? ", " : "", what[i]);
        }
    }
    int64_t dq[4], dk[4], dv[4];
    if (dims4(&o->a[0], keys[0], what[0], dq, err, errlen) || dims4(&o->a[1], keys[1], what[1], dk, err, errlen) ||
        dims4(&o->a[2], keys[2], what[2], dv, err, errlen))
        goto done;
    if (memcmp(dk, dv, sizeof dk)) {
        ls_io_err(err, errlen, "%s: V shape [%lld, %lld, %lld, %lld] differs from K shape [%lld, %lld, %lld, %lld]", keys[2],
                  (long long)dv[0], (long long)dv[1], (long long)dv[2], (long long)dv[3], (long long)dk[0],
                  (long long)dk[1], (long long)dk[2], (long long)dk[3]);
        goto done;
    }
    if (dq[0] != dk[0] || dq[3] != dk[3]) {
        ls_io_err(err, errlen, "%s: Q shape [%lld, %lld, %lld, %lld] and K shape [%lld, %lld, %lld, %lld] disagree in %s",
                  keys[1], (long long)dq[0], (long long)dq[1], (long long)dq[2], (long long)dq[3], (long long)dk[0],
                  (long long)dk[1], (long long)dk[2], (long long)dk[3], dq[0] != dk[0] ? "batch" : "head dimension");
        goto done;
    }
    if (dq[1] % dk[1]) {
        ls_io_err(err, errlen, "%s: %lld KV heads do not divide %lld query heads", keys[1], (long long)dk[1], (long long)dq[1]);
        goto done;
    }
    if (dq[3] > 4096) {
        ls_io_err(err, errlen, "%s: head dimension %lld exceeds 4096", keys[0], (long long)dq[3]);
        goto done;
    }
    if (w->causal && dq[2] > dk[2]) {
        ls_io_err(err, errlen, "workload.causal: causal attention needs seq_q <= seq_k, the trace has seq_q = %lld, seq_k = %lld",
                  (long long)dq[2], (long long)dk[2]);
        goto done;
    }
    if (dq[3] % cfg->algorithm.chunk_k) {
        ls_io_err(err, errlen, "algorithm.chunk_k: %d does not divide the trace head dimension %lld", cfg->algorithm.chunk_k,
                  (long long)dq[3]);
        goto done;
    }
    for (int i = 0; i < 3; ++i) {
        if ((int64_t)o->a[i].count > w->max_elements) {
            ls_io_err(err, errlen, "%s: %s: %zu elements exceed workload.max_elements = %lld", keys[i], what[i], o->a[i].count,
                      (long long)w->max_elements);
            goto done;
        }
        char where[sizeof what[0] + 64];
        snprintf(where, sizeof where, "%.40s: %.1167s", keys[i], what[i]);  /* keys: workload.trace.* */
        if (ls_workload_check_finite(o->a[i].data, o->a[i].ndim, o->a[i].shape, where, err, errlen)) goto done;
    }
    ls_config_shape shape = { (int)dq[0], (int)dq[1], (int)dq[2], (int)dk[2], (int)dq[3], w->causal, w->window };
    char why[256];
    const char *guard = NULL;
    if (ls_config_check_work(cfg, &shape, !cfg->timed.timing_only, cfg->timed.enabled, why, sizeof why, &guard)) {
        ls_io_err(err, errlen, "%s: the trace's %s (raise it to run this; the run then prints its size first)", guard, why);
        goto done;
    }
    if (w->sharpness != 1.0)
        for (size_t i = 0; i < o->a[0].count; ++i) o->a[0].data[i] = (float)(o->a[0].data[i] * w->sharpness);
    out->batch = (int)dq[0];
    out->heads_q = (int)dq[1];
    out->heads_kv = (int)dk[1];
    out->seq_q = (int)dq[2];
    out->seq_k = (int)dk[2];
    out->dim = (int)dq[3];
    out->causal = w->causal;
    out->window = w->window;
    out->q = o->a[0].data;
    out->k = o->a[1].data;
    out->v = o->a[2].data;
    out->owner = o;
    out->release = trace_release;
    o = NULL;
    rc = 0;
done:
    if (o) {
        for (int i = 0; i < 3; ++i) ls_npy_free(&o->a[i]);
        free(o);
    }
    return rc;
}
