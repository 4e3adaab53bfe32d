/*
 * fuzz/fuzz_auto.c - libFuzzer target: format sniffing ("auto").
 *
 * The input is one file opened with no format named.  Whatever the
 * sniffers pick must be a registered format that can be sniffed (binary
 * block lists never are: any bytes would pass), and the file must then
 * read exactly as it does with that format forced: the same requests in
 * the same order, the same end or the same error message.  An empty file
 * cannot be sniffed and must be refused when it is opened.  The reads are
 * checked as harness.h says.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "harness.h"

static bool registered(const char *name)
{
    const char *n;

    for (size_t i = 0; (n = zc_trace_format_name(i)) != NULL; i++)
        if (strcmp(n, name) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_run sniffed, forced;
    struct fuzz_file f;

    fuzz_file_set(0, data, size, &f);
    fuzz_read(&f, 1, NULL, &sniffed);
    if (size == 0)
        FUZZ_CHECK(sniffed.open_rc == -ZC_EFORMAT);
    if (sniffed.open_rc)
        return 0;
    FUZZ_CHECK(registered(sniffed.format));
    FUZZ_CHECK(strncmp(sniffed.format, "blocklist-u", 11) != 0);
    fuzz_read(&f, 1, sniffed.format, &forced);
    fuzz_expect_same(&sniffed, &forced, "auto reads unlike its format forced");
    return 0;
}
