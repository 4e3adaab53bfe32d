/*
 * fuzz/fuzz_blktrace.c - libFuzzer target: the blktrace reader and its
 * per-CPU merge.
 *
 * The input is one blktrace file.  It is read whole, and cut in two at
 * a byte it chooses itself: the sequence field of its first record (bytes
 * 4..7, little-endian; the reader ignores that field) modulo the input's
 * size plus one, so a seed can put the cut at a record boundary and the
 * fuzzer can move it.  The two parts are read alone and as a two-CPU
 * capture, merged by time (harness.h lists the checks).
 *
 * On top of those, when the whole input reads completely, so that its
 * records are known (48-byte header plus pdu_len bytes, in the byte order
 * its magic says):
 *
 *   - a cut inside a record must make the first part fail: a record cut
 *     short is never taken for the end of a file;
 *   - dealt into CPUS files by the low bits of each record's cpu field,
 *     as blktrace itself writes them, the records merge back into the
 *     same requests, in time order if the input was, and in the input's
 *     own order if its times strictly increase (this is what reaches
 *     every branch of the merge's heap, which two files do not).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { HEADER = 48, CPUS = 4, FIRST_SLOT = 4 };

/* The size of the record at p, left bytes before the end: 0 if no whole
 * record starts there. */
static size_t record_size(const uint8_t *p, size_t left)
{
    bool le, be;
    size_t n;

    if (left < HEADER)
        return 0;
    le = p[3] == 0x65 && p[2] == 0x61 && p[1] == 0x74;
    be = p[0] == 0x65 && p[1] == 0x61 && p[2] == 0x74;
    if (!le && !be)
        return 0;
    n = HEADER +
        (le ? (size_t)(p[46] | p[47] << 8) : (size_t)(p[46] << 8 | p[47]));
    return n <= left ? n : 0;
}

/* Whether at is a record boundary of data[size] (0 and size included),
 * walking records from the start. */
static bool at_boundary(const uint8_t *data, size_t size, size_t at)
{
    size_t o = 0;

    while (o < at) {
        size_t n = record_size(data + o, size - o);

        if (n == 0)
            return false;
        o += n;
    }
    return o == at;
}

/* The records of a complete input dealt into per-CPU files and merged. */
static void check_per_cpu(const uint8_t *data, size_t size,
                          const struct fuzz_run *whole)
{
    struct fuzz_file files[CPUS];
    struct fuzz_run m;
    uint8_t *part[CPUS];
    size_t len[CPUS] = {0}, o = 0, n;

    for (int c = 0; c < CPUS; c++) {
        part[c] = malloc(size ? size : 1);
        FUZZ_CHECK(part[c] != NULL);
    }
    for (; o < size; o += n) {
        const uint8_t *p = data + o;
        int c;

        n = record_size(p, size - o);
        if (n == 0)
            fuzz_fail("blktrace: no whole record at byte %zu, yet the file "
                      "read completely",
                      o);
        c = (p[0] == 0x65 ? p[43] : p[40]) % CPUS;
        memcpy(part[c] + len[c], p, n);
        len[c] += n;
    }
    for (int c = 0; c < CPUS; c++)
        fuzz_file_set(FIRST_SLOT + c, part[c], len[c], &files[c]);
    fuzz_read(files, CPUS, "blktrace", &m);
    if (!fuzz_complete(&m) || m.count != whole->count || m.sum != whole->sum ||
        (whole->sorted && !m.sorted) ||
        (whole->strict && m.chain != whole->chain))
        fuzz_fail("blktrace: %d per-CPU files merge to %llu requests (rc %d, "
                  "%s) where the whole file has %llu%s",
                  CPUS, (unsigned long long)m.count, m.rc,
                  m.sorted ? "sorted" : "unsorted",
                  (unsigned long long)whole->count,
                  whole->strict ? ", strictly in time order" : "");
    for (int c = 0; c < CPUS; c++)
        free(part[c]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_reads x;
    uint32_t seq = 0;
    size_t at;
    bool clean;

    if (size >= 8)
        seq = (uint32_t)data[4] | (uint32_t)data[5] << 8 |
              (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
    at = (size_t)(seq % ((uint64_t)size + 1));
    clean = at_boundary(data, size, at);
    fuzz_reader("blktrace", data, size, at, clean, &x);
    /* Records are dealt to CPUs from the bytes as they are: not for
     * compressed input (whose cut is never clean either). */
    if (!fuzz_complete(&x.whole) || fuzz_is_zstd(data, size))
        return 0;
    if (!clean && x.a.open_rc == 0 && x.a.rc >= 0)
        fuzz_fail("blktrace: a cut at byte %zu, inside a record, read as "
                  "a complete file",
                  at);
    check_per_cpu(data, size, &x.whole);
    return 0;
}
