/*
 * fuzz/harness.h - what the libFuzzer targets share.
 *
 * The trace readers take file paths, so a target writes its input into a
 * memory file (memfd_create) and hands the reader "/proc/self/fd/N".  A
 * few such files are made once per process and rewritten for every input.
 *
 * A read is drained to its end and summed up in a struct fuzz_run: the
 * result of zc_trace_open() and of the last zc_trace_next(), how many
 * requests came out, an order-dependent and an order-independent hash of
 * them, whether their times never went back, and the error message.
 * Draining checks what must hold whatever the input (for a zstd-compressed
 * input, which every reader decompresses, sizes, offsets and lines may be
 * those of the decompressed bytes):
 *
 *   - every request has length > 0 and offset + length below 2^64; a
 *     block list's request is one whole page of device 0 at time 0; an
 *     access stream's has ino != 0, whole pages and known flags (fault-
 *     around only mapped, mapped only reads, a file_size only with
 *     ZC_REQ_SIZE), others ino = flags = file_size = 0;
 *   - no more requests than the input has bytes (a reader that makes
 *     requests out of nothing would loop);
 *   - an error is -ZC_EFORMAT (memory files never fail to read) and its
 *     message is one non-empty line that starts with the path of one of
 *     the files; an error of zc_trace_next() names the place, "PATH:LINE: "
 *     with LINE within the file's lines or "PATH: offset N: " with N
 *     inside the file;
 *   - the end and errors are sticky: one more zc_trace_next() returns the
 *     same and leaves the message as it was.
 *
 * fuzz_reader() then reads the input whole, cut in two at a chosen byte,
 * and as the two parts together, and checks that the parts add up: for a
 * format read one file after the other, reading [A, B] is reading A then
 * B (an error in A stops it); for blktrace, whose files are merged by
 * time, the merge is complete iff both parts are, then holds the same
 * requests, in time order if each part was, and otherwise fails with one
 * of the parts' own messages.  A cut at a clean place (a line end, a
 * whole entry, a record boundary) of an input that reads completely must
 * give parts that read completely, with the same requests.  An empty
 * file (the whole, or a part) is a trace of no requests.
 *
 * Anything that does not hold is reported on stderr and abort()s, which
 * libFuzzer records as a crash with the input that caused it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_FUZZ_HARNESS_H
#define ZC_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zcache_sim.h"

/* libFuzzer's entry point, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input file: the bytes and the path they can be opened at. */
struct fuzz_file {
    const uint8_t *data;
    size_t size;
    const char *path;
    bool zstd;            /* data begins with the zstd frame magic */
    uint64_t plain_size;  /* bytes the readers see: decompressed if zstd */
    uint64_t plain_lines; /* lines of those bytes (an upper bound if zstd) */
};

/* Memory files: slots 0 .. FUZZ_SLOTS - 1; fuzz_reader() uses 0..2. */
#define FUZZ_SLOTS 8

/* Write data[size] into memory file slot and describe it in *f. */
void fuzz_file_set(int slot, const uint8_t *data, size_t size,
                   struct fuzz_file *f);

/* A drained read. */
struct fuzz_run {
    int open_rc;     /* zc_trace_open()'s result */
    int rc;          /* the last zc_trace_next(): 0 end, < 0 error */
    uint64_t count;  /* requests handed out */
    uint64_t chain;  /* order-dependent hash of them */
    uint64_t sum;    /* order-independent hash of them */
    bool sorted;     /* their times never decreased */
    bool strict;     /* their times always increased */
    uint64_t last;   /* time of the last request */
    char format[32]; /* zc_trace_format() after the open */
    char msg[512];   /* the error message, or "" */
};

/* Whether bytes begin a zstd frame, or a skippable frame (the reader
 * decompresses both). */
static inline bool fuzz_is_zstd(const uint8_t *d, size_t n)
{
    return n >= 4 &&
           ((d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd) ||
            ((d[0] & 0xf0) == 0x50 && d[1] == 0x2a && d[2] == 0x4d &&
             d[3] == 0x18));
}

/* Whether a run's open was refused for its zstd data: damaged, zstd
 * inside zstd, or decompressing to a size no entry size divides (the
 * reader decompresses a regular file at the open to sniff and measure
 * it, so these refusals may come that early). */
static inline bool fuzz_zstd_refused(const struct fuzz_run *r)
{
    return r->open_rc != 0 && (strstr(r->msg, "zstd") != NULL ||
                               strstr(r->msg, "compressed") != NULL);
}

/* Whether a run read its files to the end without an error. */
static inline bool fuzz_complete(const struct fuzz_run *r)
{
    return r->open_rc == 0 && r->rc == 0;
}

/* Open files[n] as format (NULL: "auto"), drain, check; the result in
 * *r. */
void fuzz_read(const struct fuzz_file *files, size_t n, const char *format,
               struct fuzz_run *r);

/* Abort with a message on stderr unless two runs are the same: open and
 * last results, requests (in order) and message. */
void fuzz_expect_same(const struct fuzz_run *a, const struct fuzz_run *b,
                      const char *what);

/* What fuzz_reader() read. */
struct fuzz_reads {
    struct fuzz_run whole, a, b, pair;
};

/*
 * Every check above for one forced format on input data[size]: whole,
 * cut at byte `at` into A and B, and [A, B].  clean: the cut is at a
 * place that keeps both parts well-formed when the whole is.  *out (if
 * not NULL) gets the four runs for the target's own checks.
 */
void fuzz_reader(const char *format, const uint8_t *data, size_t size,
                 size_t at, bool clean, struct fuzz_reads *out);

/* A 64-bit hash of data[size] (FNV-1a, then mixed), for choices that
 * should follow the input. */
uint64_t fuzz_hash(const uint8_t *data, size_t size);

/* A cut for a text format: at the start of a line (clean) for half of the
 * inputs, at any byte for the others. */
size_t fuzz_cut_text(const uint8_t *data, size_t size, bool *clean);

/* A cut for an array of entry-byte entries: at a whole entry (clean) for
 * half of the inputs, at any byte for the others. */
size_t fuzz_cut_entries(const uint8_t *data, size_t size, size_t entry,
                        bool *clean);

/* Report a broken invariant and abort. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

#define FUZZ_CHECK(cond)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            fuzz_fail("%s:%d: check failed: %s", __FILE__, __LINE__, #cond);   \
    } while (0)

#endif /* ZC_FUZZ_HARNESS_H */
