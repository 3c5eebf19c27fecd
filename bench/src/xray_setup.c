/*
 * xray_setup.c: linked into the XRay builds, compiled without XRay. With
 * BENCH_XRAY=noop it installs an empty handler and patches every sled before
 * main (XRay's "patched, no-op handler" configuration). With BENCH_XRAY=fdr
 * it starts flight-data-recorder mode with its default options and patches,
 * and at exit (after the timed region) finalises and writes the log, as the
 * XRay documentation's FDR example does; XRAY_OPTIONS=xray_logfile_base=...
 * chooses where. Unpatched needs no code.
 *
 * compiler-rt's <xray/xray_interface.h> is C++ only; these are its C-linkage
 * entry points (LLVM 14).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int __xray_set_handler(void (*entry)(int32_t fn, int type));
int __xray_patch(void);
int __xray_log_select_mode(const char *mode);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

static void noop_handler(int32_t fn, int type) {}

static void fdr_flush(void)
{
    __xray_log_finalize();
    __xray_log_flushLog();
}

__attribute__((constructor)) static void bench_xray_setup(void)
{
    const char *mode = getenv("BENCH_XRAY");
    if (mode && strcmp(mode, "noop") == 0) {
        __xray_set_handler(noop_handler);
        __xray_patch();
    } else if (mode && strcmp(mode, "fdr") == 0) {
        __xray_log_select_mode("xray-fdr");
        __xray_log_init_mode("xray-fdr", "");
        __xray_patch();
        atexit(fdr_flush);
    }
}
