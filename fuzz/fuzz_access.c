/*
 * fuzz/fuzz_access.c - libFuzzer target: the access-stream reader, binary
 * form ("access"), and the writer behind it.
 *
 * The input is one file (plain records, or zstd-compressed as the writer
 * makes them), read with the format forced: whole, cut in two at any byte
 * (no cut of one stream is clean: each part needs its header and end),
 * and as the two parts one after the other; harness.h lists the checks.
 * Then a stream that reads completely is written again with
 * zc_access_writer (binary and text, its page size) and must read back as
 * the same requests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_access.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_reads x;
    size_t at = (size_t)(fuzz_hash(data, size) % ((uint64_t)size + 1));

    fuzz_reader("access", data, size, at, false, &x);
    if (fuzz_complete(&x.whole))
        fuzz_access_rewrite(data, size, "access", &x.whole);
    return 0;
}
