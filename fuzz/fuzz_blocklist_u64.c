/*
 * fuzz/fuzz_blocklist_u64.c - libFuzzer target: the blocklist-u64 reader
 * (little-endian 64-bit page numbers).
 *
 * The input is one file, read with the format forced: whole, cut in two
 * at a whole entry or at any byte (the choice follows the input), and as
 * the two parts one after the other; a size that is not a whole number
 * of entries must be refused when the trace is opened (a zstd-compressed
 * input is opened, and its decompressed size checked at its end).  harness.h
 * lists the checks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "harness.h"

enum { ENTRY = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_reads x;
    bool clean;
    size_t at = fuzz_cut_entries(data, size, ENTRY, &clean);

    fuzz_reader("blocklist-u64", data, size, at, clean, &x);
    if (fuzz_is_zstd(data, size)) {
        /* zstd: the size is checked at the end of the decompressed bytes;
         * the open refuses only damaged zstd or zstd inside zstd */
        FUZZ_CHECK(x.whole.open_rc == 0 || fuzz_zstd_refused(&x.whole));
        return 0;
    }
    FUZZ_CHECK((x.whole.open_rc != 0) == (size % ENTRY != 0));
    FUZZ_CHECK(x.whole.open_rc || x.whole.rc < 0 ||
               x.whole.count == size / ENTRY);
    return 0;
}
