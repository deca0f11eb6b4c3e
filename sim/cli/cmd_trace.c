/* `lampsim trace CHECKPOINT --text FILE -o OUT`: from a checkpoint to the model description and the
 * study slice (docs/models.md, "From a checkpoint to the study"). The loading, tracing and fitting are
 * scripts/trace_checkpoint.py (PyTorch, python/lampsim); it runs this binary for the statistics, the
 * fits and `lampsim model`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void trace_usage(FILE *out)
{
    fputs("usage: lampsim trace CHECKPOINT --text FILE -o OUT [--tokens N] [--layers all|0,5,9] [--prefill N]\n"
          "                     [--decode N] [--tokenizer FILE] [--run] [--python PY]\n"
          "  Loads CHECKPOINT (a Hugging Face Llama / Qwen2 / Qwen3 / Gemma 3 directory, a llama2.c .bin, the tiny\n"
          "  models' .safetensors), runs it on the first N tokens of FILE (default 512) and writes to OUT:\n"
          "  traces/ (Q/K/V of the layers asked, as trace workloads), stats.csv (`lampsim workload stats`),\n"
          "  fit/layerL.yaml with its self-check fit/layerL.log (`lampsim workload fit`), model.yaml (a model\n"
          "  description for `lampsim model` at --prefill tokens and --decode generated tokens), slice.yaml and\n"
          "  study.yaml (the verdict study on the fitted slice: `lampsim study OUT/study.yaml`).\n"
          "  --run          also run `lampsim model OUT/model.yaml -o OUT/model` and print its table\n"
          "  --python PY    the Python with torch 1.13 and numpy (default $LAMPSIM_PYTHON or /usr/bin/python3)\n"
          "See docs/models.md.\n",
          out);
}

int ls_cli_trace(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            trace_usage(stdout);
            return 0;
        }
    if (argc < 2) {
        trace_usage(stderr);
        return 2;
    }
    return ls_cli_run_script("trace", "trace_checkpoint.py", "LAMPSIM_TRACE_SCRIPT", NULL,
                             "python3-numpy, python3-yaml, python3-torch", argc, argv);
}
