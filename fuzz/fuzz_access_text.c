/*
 * fuzz/fuzz_access_text.c - libFuzzer target: the access-stream reader,
 * text form ("access-text"), and the writer behind it.
 *
 * As fuzz_access.c, for the text form: read whole, cut in two at a line
 * start or any byte (never clean: each part needs its header and "end"),
 * the parts one after the other; a stream that reads completely is
 * written again in both forms and must read back the same.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_access.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_reads x;
    bool clean;
    size_t at = fuzz_cut_text(data, size, &clean);

    fuzz_reader("access-text", data, size, at, false, &x);
    if (fuzz_complete(&x.whole))
        fuzz_access_rewrite(data, size, "access-text", &x.whole);
    return 0;
}
