/* A real base directory for the fuzz targets: created on first use under $TMPDIR (or /tmp), holding
 * configurations, includes and workload files the inputs can name (see fuzz_basedir.c), removed at
 * exit. It makes `include:`, `workload.file` and `base:` resolve, so their code is fuzzed too. */
#ifndef LAMPSIM_TESTS_FUZZ_BASEDIR_H
#define LAMPSIM_TESTS_FUZZ_BASEDIR_H
/* The directory's path (aborts when it cannot be made: the fuzzer would test nothing). */
const char *fuzz_base_dir(void);
#endif
