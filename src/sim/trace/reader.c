/*
 * sim/trace/reader.c - opening block traces: formats by name or by sniffing,
 * buffered files, per-CPU merge by time, error messages.
 *
 * A zc_trace is a list of files and one format.  Formats are the const
 * ops tables in formats[] below, found by name (the registry: adding a
 * format is one line here and one file in src/sim/trace/).  "auto" (or a NULL
 * format) sniffs the first 64 KiB of the first file with every format that
 * has a sniffer, in the order of formats[]; binary block lists have none
 * and must be forced.  Every later file is sniffed too and must come out
 * the same format as the first (one trace, one format: a block trace
 * followed by an access stream is an error, not a block trace whose
 * reader skips the stream's lines); an empty later file passes, as an
 * idle CPU's part of a blktrace capture.  An empty first file cannot be
 * sniffed: with "auto" it is -ZC_EFORMAT, with a forced format it is a trace of
 * no requests.
 *
 * Files are read with read(2) into one large buffer, and formats parse
 * lines and records in place (see reader.h).  A file that begins with a
 * zstd frame (a data frame's magic or a skippable frame's) is decompressed
 * on the fly into that buffer (ZSTD_decompressStream; concatenated frames
 * are one stream, as zstd -c a b > c makes them), so every format reads
 * NAME.zst as it reads NAME, and sniffing sees the decompressed bytes.
 * Decompressed bytes that begin with a zstd frame again are refused as
 * "compressed twice" (one layer is undone, never two).  A compressed file ends
 * well only at the end of a frame: a truncated or corrupt frame is -ZC_EFORMAT
 * naming the frame's offset in the compressed file; so is, in a format whose
 * data only zstd's content checksum guards (zc__tf_need_zstd_checksums(): the
 * access stream's binary form), a data frame whose header says it has none
 * (each frame's header is looked at as the frame begins); and a binary array's
 * entry-size check applies to the decompressed length when the end is
 * reached.  Text formats and block lists
 * read their files one after the other through a single 1 MiB buffer.
 * Formats marked merge_by_time (blktrace: one file per CPU) keep every
 * file open with a 256 KiB buffer each, read one request ahead in each, and
 * hand out the earliest of those from a binary heap keyed (time, file
 * index), so equal times keep the order of the files.  A lone path
 * "NAME.blktrace" that does not exist but whose "NAME.blktrace.0" does is
 * the whole capture NAME.blktrace.0, .1, ... up to the first missing one.
 *
 * Every file is opened and checked (it exists, is not a directory, and a
 * binary array's size is a multiple of its entry) when the trace is
 * opened, so a wrong path fails at once, not after a long replay.
 * One rule holds for every format and is checked here, after the format's
 * next(): a request spans at most max_request bytes (zc_trace_options; 1
 * GiB by default), since the replay walks a request page by page and one
 * line asking for 2^40 sectors would keep it busy for hours.
 * Errors are sticky: once zc_trace_next() failed it keeps returning that
 * error.  In a merge, a request already read is handed out before the
 * error of the file that follows it.  Heap memory is malloc's: a trace
 * has no zc_config and its buffers are not part of any cache's budget.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/bytes.h"
#include "reader.h"

static const struct zc__trace_format *const formats[] = {
    &zc__trace_blktrace,       &zc__trace_blkparse,
    &zc__trace_vscsi,          &zc__trace_disksim,
    &zc__trace_blocklist_text, &zc__trace_blocklist_u32,
    &zc__trace_blocklist_u64,  &zc__trace_access,
    &zc__trace_access_text,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum {
    SEQ_BUF = 1 << 20,     /* the buffer of text formats and block lists */
    MERGE_BUF = 256 << 10, /* per file in a merge; > 48 + 65535 */
    SNIFF_BYTES = 64 << 10,
    ERR_LEN = 512,
    ZIN_BUF = 128 << 10, /* compressed bytes read at a time */
};

static const unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};

/* Whether m[4] begins a zstd frame: the data frame's magic, or a skippable
 * frame's (0x184D2A50..0x184D2A5F, little-endian). */
static bool zstd_frame_at(const unsigned char *m)
{
    return memcmp(m, zstd_magic, sizeof(zstd_magic)) == 0 ||
           ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d &&
            m[3] == 0x18);
}

struct zc_trace {
    const struct zc__trace_format *fmt;
    size_t page_size;
    uint64_t max_request; /* bytes one request may span */
    size_t nfiles;
    char **paths;
    struct zc__tfile *files;
    unsigned char *seqbuf; /* files[0]'s buffer; all files' if not merge */
    bool sniffed; /* fmt is files[0]'s, sniffed: the others must match */
    bool merge;
    size_t cur;   /* not merge: the file being read */
    bool primed;  /* merge: every file has read one request ahead */
    size_t *heap; /* merge: files with a request ahead, earliest first */
    size_t nheap; /* merge: entries in heap */
    zc_request *ahead;
    int pending; /* merge: a file's error, reported at the next call */
    struct {     /* where the request last returned came from */
        const char *path; /* NULL before the first */
        uint64_t line, off; /* line: a text format's (0: binary, off) */
    } last;
    int status;  /* sticky error */
    struct zc__trace_info info;
    char err[ERR_LEN];
};

/* ---- the registry ----------------------------------------------------- */

static const struct zc__trace_format *find_format(const char *name)
{
    for (size_t i = 0; i < COUNT(formats); i++)
        if (strcmp(formats[i]->name, name) == 0)
            return formats[i];
    return NULL;
}

const char *zc_trace_format_name(size_t i)
{
    return i < COUNT(formats) ? formats[i]->name : NULL;
}

const char *zc_trace_format_doc(size_t i)
{
    return i < COUNT(formats) ? formats[i]->doc : NULL;
}

/* "a, b, c" into buf. */
static const char *format_list(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < COUNT(formats) && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         formats[i]->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* ---- messages --------------------------------------------------------- */

static int set_err(zc_trace *t, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int set_err(zc_trace *t, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(t->err, sizeof(t->err), fmt, ap);
    va_end(ap);
    return code;
}

int zc__tf_fail_line(struct zc__tfile *f, const char *fmt, ...)
{
    char what[ERR_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(f->err, f->errlen, "%s:%llu: %s", f->path,
             (unsigned long long)f->line, what);
    return -ZC_EFORMAT;
}

int zc__tf_fail_at(struct zc__tfile *f, uint64_t offset, const char *fmt, ...)
{
    char what[ERR_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(f->err, f->errlen, "%s: offset %llu: %s", f->path,
             (unsigned long long)offset, what);
    return -ZC_EFORMAT;
}

/* ---- buffered files --------------------------------------------------- */

/* Move the unread bytes to the start of the buffer. */
static void compact(struct zc__tfile *f)
{
    size_t n = f->end - f->pos;

    if (f->pos == 0)
        return;
    memmove(f->buf, f->buf + f->pos, n);
    f->buf_off += f->pos;
    f->pos = 0;
    f->end = n;
}

/* One read() of the file at file offset off into dst[cap]: 0 and *got
 * (0 at the end), or -ZC_EIO with a message. */
static int read_raw(struct zc__tfile *f, unsigned char *dst, size_t cap,
                    uint64_t off, size_t *got)
{
    for (;;) {
        ssize_t n = read(f->fd, dst, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return 0;
        }
        if (errno != EINTR) {
            snprintf(f->err, f->errlen, "%s: offset %llu: read failed: %s",
                     f->path, (unsigned long long)off, strerror(errno));
            return -ZC_EIO;
        }
    }
}

/* The decompressed stream has ended: its length must be a whole number of
 * the format's entries. */
static int check_entries(struct zc__tfile *f)
{
    uint64_t total = f->buf_off + f->end;

    if (f->entry_size && total % f->entry_size)
        return zc__tf_fail_at(f, total - total % f->entry_size,
                              "decompressed size %llu bytes is not a multiple "
                              "of the %zu-byte entry",
                              (unsigned long long)total, f->entry_size);
    return 0;
}

/* The message of a data frame at off without zstd's checksum. */
static int unchecked_frame(struct zc__tfile *f, uint64_t off)
{
    return zc__tf_fail_at(f, off,
                          "zstd frame without a content checksum (the "
                          "offset is the frame's in the compressed file), "
                          "which alone guards %s: compress them with it "
                          "(zstd's default, not --no-check)",
                          f->checksums_guard);
}

int zc__tf_need_zstd_checksums(struct zc__tfile *f, const char *what)
{
    f->checksums_guard = what;
    return f->unchecked_frame ? unchecked_frame(f, f->unchecked_frame - 1) : 0;
}

/* A frame begins at zin[zin_pos]: note where, and whether its header says
 * it carries no content checksum (an error if the format relies on one).
 * The header's descriptor is its fifth byte: if fewer are unread, they
 * move to zin[0] and more are read behind them. */
static int frame_begins(struct zc__tfile *f)
{
    const size_t need = 5; /* the magic and the descriptor */
    size_t unread = f->zin_end - f->zin_pos;

    f->frame_off = f->zin_off + f->zin_pos;
    if (unread < need && !f->zin_eof) {
        memmove(f->zin, f->zin + f->zin_pos, unread);
        f->zin_off += f->zin_pos;
        f->zin_pos = 0;
        f->zin_end = unread;
        while (f->zin_end < need && !f->zin_eof) {
            size_t got;
            int rc = read_raw(f, f->zin + f->zin_end, f->zin_cap - f->zin_end,
                              f->zin_off + f->zin_end, &got);
            if (rc)
                return rc;
            f->zin_end += got;
            f->zin_eof = got == 0;
        }
    }
    if (zc__zstd_frame_checksummed(f->zin + f->zin_pos,
                                   f->zin_end - f->zin_pos) != 0)
        return 0;
    if (f->checksums_guard)
        return unchecked_frame(f, f->frame_off);
    if (!f->unchecked_frame)
        f->unchecked_frame = f->frame_off + 1;
    return 0;
}

/* Decompress into the free tail of the buffer until some bytes came out
 * or the last frame ended (eof). */
static int inflate_more(struct zc__tfile *f)
{
    for (;;) {
        ZSTD_outBuffer out = {f->buf + f->end, f->cap - f->end, 0};
        ZSTD_inBuffer in;
        size_t r;
        int rc;

        if (f->zin_pos == f->zin_end && !f->zin_eof) {
            size_t got;
            f->zin_off += f->zin_end;
            f->zin_pos = f->zin_end = 0;
            rc = read_raw(f, f->zin, f->zin_cap, f->zin_off, &got);
            if (rc)
                return rc;
            f->zin_end = got;
            f->zin_eof = got == 0;
        }
        if (f->zret == 0 && f->zin_pos == f->zin_end && f->zin_eof) {
            f->eof = true; /* between frames: a clean end */
            return check_entries(f);
        }
        if (f->zret == 0 && (rc = frame_begins(f)))
            return rc;
        in = (ZSTD_inBuffer){f->zin, f->zin_end, f->zin_pos};
        r = ZSTD_decompressStream(f->zstd, &out, &in);
        if (ZSTD_isError(r) &&
            ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) {
            /* the machine's failure, not the file's */
            snprintf(f->err, f->errlen, "%s: out of memory (decompressing)",
                     f->path);
            return -ZC_ENOMEM;
        }
        if (ZSTD_isError(r))
            return zc__tf_fail_at(f, f->frame_off,
                                  "corrupt zstd frame (%s; the offset is the "
                                  "frame's in the compressed file)",
                                  ZSTD_getErrorName(r));
        f->zin_pos = in.pos;
        f->zret = r;
        f->end += out.pos;
        if (out.pos)
            return 0;
        if (f->zin_pos == f->zin_end && f->zin_eof && f->zret != 0)
            return zc__tf_fail_at(f, f->frame_off,
                                  "truncated zstd frame (the offset is the "
                                  "frame's in the compressed file)");
    }
}

/* More bytes into the free tail of the buffer (there is room). */
static int read_more(struct zc__tfile *f)
{
    size_t got;
    int rc;

    if (f->zstd)
        return inflate_more(f);
    rc = read_raw(f, f->buf + f->end, f->cap - f->end, f->buf_off + f->end,
                  &got);
    if (rc)
        return rc;
    f->end += got;
    f->eof = got == 0;
    return 0;
}

int zc__tf_fill(struct zc__tfile *f, size_t want, size_t *avail)
{
    if (want > f->cap)
        want = f->cap;
    if (f->end - f->pos < want) {
        if (f->cap - f->pos < want)
            compact(f);
        while (f->end - f->pos < want && !f->eof) {
            int rc = read_more(f);
            if (rc)
                return rc;
        }
    }
    *avail = f->end - f->pos < want ? f->end - f->pos : want;
    return 0;
}

int zc__tf_line(struct zc__tfile *f, const char **line, size_t *len)
{
    size_t scanned = 0; /* bytes of the pending line known to hold no \n */
    const unsigned char *s, *nl;
    size_t n;

    for (;;) {
        s = f->buf + f->pos;
        n = f->end - f->pos;
        nl = n > scanned ? memchr(s + scanned, '\n', n - scanned) : NULL;
        if (nl) {
            n = (size_t)(nl - s);
            f->pos += n + 1;
            break;
        }
        if (f->eof) {
            if (n == 0)
                return 0;
            f->pos = f->end; /* a last line without '\n' */
            break;
        }
        if (n == f->cap) {
            f->line++;
            return zc__tf_fail_line(f, "line longer than %zu bytes", f->cap);
        }
        scanned = n;
        compact(f);
        int rc = read_more(f);
        if (rc)
            return rc;
    }
    if (n && s[n - 1] == '\r')
        n--;
    f->line++;
    *line = (const char *)s;
    *len = n;
    return 1;
}

/* ---- parsing help ----------------------------------------------------- */

bool zc__parse_hex(const char **pp, const char *end, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    bool any = false;

    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (; p < end; p++) {
        unsigned d;
        if (zc__is_digit(*p))
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (*p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (x >> 60)
            return false;
        x = x << 4 | d;
        any = true;
    }
    if (!any)
        return false;
    *pp = p;
    *v = x;
    return true;
}

bool zc__parse_time(const char **pp, const char *end, uint64_t unit_ns,
                    uint64_t *ns, bool *had_point)
{
    const char *p = *pp;
    uint64_t whole, frac = 0, scale = 1;

    if (!zc__parse_u64(&p, end, &whole))
        return false;
    *had_point = false;
    if (p < end && *p == '.') {
        *had_point = true;
        p++;
        /* at most 9 digits: frac * unit_ns stays below 2^64 */
        for (; p < end && zc__is_digit(*p); p++)
            if (scale < 1000000000u) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                scale *= 10;
            }
    }
    if (whole > UINT64_MAX / unit_ns)
        return false;
    whole *= unit_ns;
    frac = frac * unit_ns / scale;
    if (whole > UINT64_MAX - frac)
        return false;
    *ns = whole + frac;
    *pp = p;
    return true;
}

bool zc__byte_span(uint64_t pos, uint64_t pos_unit, uint64_t count,
                   uint64_t count_unit, uint64_t *offset, uint64_t *length)
{
    uint64_t off, len;

    if (__builtin_mul_overflow(pos, pos_unit, &off) ||
        __builtin_mul_overflow(count, count_unit, &len) ||
        (len && len - 1 > UINT64_MAX - off)) /* its last byte is 2^64 - 1 */
        return false;
    *offset = off;
    *length = len;
    return true;
}

bool zc__sniff_first_line(const unsigned char *head, size_t len, bool at_eof,
                          const char **line, size_t *llen)
{
    const char *p = (const char *)head, *end = p + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *q = zc__skip_space(p, e);

        if (!nl && !at_eof)
            return false;
        if (q < e && *q != '#') {
            *line = p;
            *llen = (size_t)(e - p);
            if (*llen && p[*llen - 1] == '\r')
                (*llen)--;
            return true;
        }
        p = nl ? nl + 1 : end;
    }
    return false;
}

/* ---- files of a trace ------------------------------------------------- */

static void tfile_close(struct zc__tfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    ZSTD_freeDCtx(f->zstd);
    f->zstd = NULL;
    free(f->zin);
    f->zin = NULL;
    zc__file_sizes_free(&f->acc.sizes);
}

/* Read the first bytes; if they are a zstd frame's, move them to the
 * compressed side and decompress from there on.  Decompressed bytes that
 * begin a zstd frame again are a file compressed twice: an error, or no
 * format would recognise it. */
static int detect_zstd(struct zc__tfile *f)
{
    size_t avail;
    int rc = zc__tf_fill(f, sizeof(zstd_magic), &avail);

    if (rc || avail < sizeof(zstd_magic) || !zstd_frame_at(f->buf))
        return rc;
    f->zin_cap = f->end > ZIN_BUF ? f->end : ZIN_BUF; /* the first read's */
    f->zstd = ZSTD_createDCtx();
    f->zin = malloc(f->zin_cap);
    if (!f->zstd || !f->zin) {
        snprintf(f->err, f->errlen, "out of memory");
        return -ZC_ENOMEM;
    }
    memcpy(f->zin, f->buf, f->end);
    f->zin_end = f->end;
    f->zin_eof = f->eof;
    f->pos = f->end = 0;
    f->eof = false;
    rc = zc__tf_fill(f, sizeof(zstd_magic), &avail);
    if (!rc && avail == sizeof(zstd_magic) && zstd_frame_at(f->buf))
        rc = zc__tf_fail_at(f, 0,
                            "compressed twice (zstd data inside zstd data): "
                            "decompress it once (zstd -d) first");
    return rc;
}

/* Whether a regular file begins with the zstd magic, read without moving
 * the file's position or touching any buffer. */
static bool zstd_at_start(int fd)
{
    unsigned char m[sizeof(zstd_magic)];

    return pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) && zstd_frame_at(m);
}

static int same_format(zc_trace *t, struct zc__tfile *f);
static int same_format_aside(zc_trace *t, struct zc__tfile *f);

/* Open paths[i] reading into buf, checking it is a file the format can
 * take; a later file of a sniffed trace must sniff as the first (a regular
 * file is sniffed aside when check_only, anything else when it is opened
 * to be read).  check_only: the file is closed again at once and reopened when
 * its turn comes (buf is another file's: leave it alone). */
static int tfile_open(zc_trace *t, size_t i, unsigned char *buf, size_t cap,
                      bool check_only)
{
    struct zc__tfile *f = &t->files[i];
    struct stat st;
    int fd, rc;

    do
        fd = open(t->paths[i], O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return set_err(t, -ZC_EIO, "%s: cannot open: %s", t->paths[i],
                       strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return set_err(t, -ZC_EIO, "%s: cannot stat: %s", t->paths[i],
                       strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return set_err(t, -ZC_EIO, "%s: is a directory, not a trace file",
                       t->paths[i]);
    }
    *f = (struct zc__tfile){
        .path = t->paths[i],
        .fd = fd,
        .buf = buf,
        .cap = cap,
        .page_size = t->page_size,
        .entry_size = t->fmt ? t->fmt->entry_size : 0,
        .info = &t->info,
        .err = t->err,
        .errlen = sizeof(t->err),
    };
    rc = check_only ? 0 : detect_zstd(f);
    if (rc) {
        tfile_close(f);
        return rc;
    }
    if (f->entry_size && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size % f->entry_size &&
        !(check_only ? zstd_at_start(fd) : f->zstd != NULL)) {
        tfile_close(f);
        return set_err(t, -ZC_EFORMAT,
                       "%s: size %llu bytes is not a multiple of the %zu-byte "
                       "%s entry",
                       t->paths[i], (unsigned long long)st.st_size,
                       t->fmt->entry_size, t->fmt->name);
    }
    if (t->sniffed && i > 0 && (!check_only || S_ISREG(st.st_mode))) {
        rc = check_only ? same_format_aside(t, f) : same_format(t, f);
        if (rc) {
            tfile_close(f);
            return rc;
        }
    }
    return 0;
}

/* The format's header of a file about to be read. */
static int tfile_begin(zc_trace *t, struct zc__tfile *f)
{
    return t->fmt->begin ? t->fmt->begin(f) : 0;
}

/* "NAME.blktrace" standing for NAME.blktrace.0, .1, ...: how many of those
 * exist (0: the path is to be taken as it is). */
static size_t blktrace_parts(const char *path)
{
    static const char suffix[] = ".blktrace";
    size_t len = strlen(path), n = 0;
    struct stat st;
    char *name;

    if (len < sizeof(suffix) - 1 ||
        strcmp(path + len - (sizeof(suffix) - 1), suffix) != 0)
        return 0;
    if (stat(path, &st) == 0 || errno != ENOENT)
        return 0;
    name = malloc(len + 24);
    if (!name)
        return 0;
    for (;; n++) {
        snprintf(name, len + 24, "%s.%zu", path, n);
        if (stat(name, &st) != 0)
            break;
    }
    free(name);
    return n;
}

static int set_paths(zc_trace *t, const char *const *paths, size_t npaths)
{
    size_t parts = 0;

    if (npaths == 1 && (!t->fmt || t->fmt->merge_by_time))
        parts = blktrace_parts(paths[0]);
    t->nfiles = parts ? parts : npaths;
    t->paths = calloc(t->nfiles, sizeof(*t->paths));
    t->files = calloc(t->nfiles, sizeof(*t->files));
    if (!t->paths || !t->files)
        return set_err(t, -ZC_ENOMEM, "out of memory");
    for (size_t i = 0; i < t->nfiles; i++) {
        size_t len = strlen(parts ? paths[0] : paths[i]) + 24;
        t->files[i].fd = -1;
        t->paths[i] = malloc(len);
        if (!t->paths[i])
            return set_err(t, -ZC_ENOMEM, "out of memory");
        if (parts)
            snprintf(t->paths[i], len, "%s.%zu", paths[0], i);
        else
            memcpy(t->paths[i], paths[i], len - 24 + 1);
    }
    return 0;
}

/* The first format whose sniffer takes head[len], or NULL. */
static const struct zc__trace_format *sniff_format(const unsigned char *head,
                                                   size_t len, bool at_eof)
{
    for (size_t i = 0; i < COUNT(formats); i++)
        if (formats[i]->sniff && formats[i]->sniff(head, len, at_eof))
            return formats[i];
    return NULL;
}

/* Pick the format of files[0] from its first bytes. */
static int sniff(zc_trace *t)
{
    struct zc__tfile *f = &t->files[0];
    char names[256];
    size_t avail;
    int rc = zc__tf_fill(f, SNIFF_BYTES, &avail);

    if (rc)
        return rc;
    t->fmt = sniff_format(f->buf + f->pos, avail, f->eof);
    t->sniffed = true;
    if (t->fmt)
        return 0;
    if (avail && !f->eof && !memchr(f->buf + f->pos, '\n', avail))
        return set_err(t, -ZC_EFORMAT,
                       "%s: its first %zu bytes hold no line end: a text "
                       "format cannot be told from a first line that long, "
                       "and no binary format matches (formats: %s; --format "
                       "forces one)",
                       f->path, avail, format_list(names, sizeof(names)));
    return set_err(t, -ZC_EFORMAT, "%s: %s (formats: %s; --format forces one)",
                   f->path,
                   avail ? "not a trace format this library recognises"
                         : "empty file, its format cannot be told",
                   format_list(names, sizeof(names)));
}

/* A later file of a sniffed trace, opened: it sniffs as the first did (an
 * empty one has no requests in any format). */
static int same_format(zc_trace *t, struct zc__tfile *f)
{
    const struct zc__trace_format *fmt;
    size_t avail;
    int rc = zc__tf_fill(f, SNIFF_BYTES, &avail);

    if (rc || avail == 0)
        return rc;
    fmt = sniff_format(f->buf + f->pos, avail, f->eof);
    if (fmt == t->fmt)
        return 0;
    if (!fmt)
        return set_err(t, -ZC_EFORMAT,
                       "%s: offset 0: not a trace format this library "
                       "recognises, but %s is a %s trace: one trace, one "
                       "format",
                       f->path, t->paths[0], t->fmt->name);
    return set_err(t, -ZC_EFORMAT,
                   "%s: offset 0: a %s trace, but %s is a %s trace: one "
                   "trace, one format",
                   f->path, fmt->name, t->paths[0], t->fmt->name);
}

/* same_format() of a file opened check_only, into a buffer of its own
 * (buf is another file's); f->buf is buf again after it. */
static int same_format_aside(zc_trace *t, struct zc__tfile *f)
{
    unsigned char *buf = f->buf, *tmp = malloc(SNIFF_BYTES);
    size_t cap = f->cap;
    int rc;

    if (!tmp)
        return set_err(t, -ZC_ENOMEM, "out of memory");
    f->buf = tmp;
    f->cap = SNIFF_BYTES;
    rc = detect_zstd(f);
    if (!rc)
        rc = same_format(t, f);
    free(tmp);
    f->buf = buf;
    f->cap = cap;
    return rc;
}

/* Open and check every file; keep all open for a merge, else only the
 * first. */
static int open_files(zc_trace *t)
{
    int rc;

    t->seqbuf = malloc(SEQ_BUF);
    if (!t->seqbuf)
        return set_err(t, -ZC_ENOMEM, "out of memory");
    rc = tfile_open(t, 0, t->seqbuf, SEQ_BUF, false);
    if (rc)
        return rc;
    if (!t->fmt) {
        rc = sniff(t);
        if (rc)
            return rc;
        t->files[0].entry_size = t->fmt->entry_size;
    }
    rc = tfile_begin(t, &t->files[0]);
    if (rc)
        return rc;
    t->merge = t->fmt->merge_by_time && t->nfiles > 1;
    if (t->merge) {
        t->heap = calloc(t->nfiles, sizeof(*t->heap));
        t->ahead = calloc(t->nfiles, sizeof(*t->ahead));
        if (!t->heap || !t->ahead)
            return set_err(t, -ZC_ENOMEM, "out of memory");
    }
    for (size_t i = 1; i < t->nfiles; i++) {
        unsigned char *buf = t->seqbuf;
        size_t cap = SEQ_BUF;
        if (t->merge) {
            buf = malloc(MERGE_BUF);
            cap = MERGE_BUF;
            if (!buf)
                return set_err(t, -ZC_ENOMEM, "out of memory");
        }
        rc = tfile_open(t, i, buf, cap, !t->merge);
        if (rc) {
            if (t->merge && t->files[i].buf != buf)
                free(buf); /* else the file's: zc_trace_close() frees it */
            return rc;
        }
        if (!t->merge)
            tfile_close(&t->files[i]); /* reopened in turn */
        else if ((rc = tfile_begin(t, &t->files[i])) != 0)
            return rc;
    }
    return 0;
}

int zc_trace_open(const char *const *paths, size_t npaths,
                  const zc_trace_options *opt, zc_trace **out, char *err,
                  size_t errlen)
{
    const char *name = opt && opt->format ? opt->format : "auto";
    char names[256];
    zc_trace *t;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!out || !paths || npaths == 0) {
        if (err && errlen)
            snprintf(err, errlen, "no trace file given");
        return -ZC_EINVAL;
    }
    for (size_t i = 0; i < npaths; i++)
        if (!paths[i]) {
            if (err && errlen)
                snprintf(err, errlen, "trace path %zu is NULL", i);
            return -ZC_EINVAL;
        }
    t = calloc(1, sizeof(*t));
    if (!t) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -ZC_ENOMEM;
    }
    t->page_size = opt && opt->page_size ? opt->page_size : 4096;
    t->max_request = opt && opt->max_request ? opt->max_request
                                             : ZC_TRACE_MAX_REQUEST_DEFAULT;
    if (strcmp(name, "auto") != 0) {
        t->fmt = find_format(name);
        if (!t->fmt) {
            rc = set_err(t, -ZC_EINVAL,
                         "unknown trace format \"%s\" (formats: auto, %s)",
                         name, format_list(names, sizeof(names)));
            goto fail;
        }
    }
    rc = set_paths(t, paths, npaths);
    if (!rc)
        rc = open_files(t);
    if (rc)
        goto fail;
    *out = t;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", t->err);
    zc_trace_close(t);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

/* The next request of file f, as the format's next(), and what holds for
 * every format: a request no longer than max_request (the replay walks a
 * request page by page, and one trace line could otherwise ask for hours of
 * it).  The message names the request's line, or its record's offset. */
#define TOO_LONG                                                               \
    "request of %llu bytes, more than the limit of %llu bytes per request "    \
    "(max_request)"

static int read_request(zc_trace *t, struct zc__tfile *f, zc_request *req)
{
    int rc = t->fmt->next(f, req);
    unsigned long long len = req->length, max = t->max_request;

    if (rc != 1 || len <= max)
        return rc;
    if (f->line) /* a text format's */
        return zc__tf_fail_line(f, TOO_LONG, len, max);
    return zc__tf_fail_at(f, f->rec_off, TOO_LONG, len, max);
}

static int next_in_turn(zc_trace *t, zc_request *req)
{
    while (t->cur < t->nfiles) {
        struct zc__tfile *f = &t->files[t->cur];
        int rc;

        if (f->fd < 0) {
            rc = tfile_open(t, t->cur, t->seqbuf, SEQ_BUF, false);
            if (!rc)
                rc = tfile_begin(t, f);
            if (rc)
                return rc;
        }
        *req = (zc_request){0};
        rc = read_request(t, f, req);
        if (rc == 1) {
            t->last.path = f->path;
            t->last.line = f->line;
            t->last.off = f->rec_off;
        }
        if (rc)
            return rc;
        tfile_close(f);
        t->cur++;
    }
    return 0;
}

static bool earlier(const zc_trace *t, size_t a, size_t b)
{
    uint64_t ta = t->ahead[a].time_ns, tb = t->ahead[b].time_ns;

    return ta < tb || (ta == tb && a < b);
}

static void sift_down(zc_trace *t, size_t i)
{
    size_t *h = t->heap, n = t->nheap;

    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && earlier(t, h[l], h[m]))
            m = l;
        if (l + 1 < n && earlier(t, h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

static void sift_up(zc_trace *t, size_t i)
{
    size_t *h = t->heap;

    while (i > 0 && earlier(t, h[i], h[(i - 1) / 2])) {
        size_t p = (i - 1) / 2, tmp = h[i];
        h[i] = h[p];
        h[p] = tmp;
        i = p;
    }
}

static int next_merged(zc_trace *t, zc_request *req)
{
    size_t i;
    int rc;

    if (t->pending)
        return t->pending;
    if (!t->primed) {
        for (i = 0; i < t->nfiles; i++) {
            t->ahead[i] = (zc_request){0};
            rc = read_request(t, &t->files[i], &t->ahead[i]);
            if (rc < 0)
                return rc;
            if (rc == 0) {
                tfile_close(&t->files[i]);
                continue;
            }
            t->heap[t->nheap++] = i;
            sift_up(t, t->nheap - 1);
        }
        t->primed = true;
    }
    if (t->nheap == 0)
        return 0;
    i = t->heap[0];
    *req = t->ahead[i];
    t->last.path = t->files[i].path; /* its position: read one ahead */
    t->last.line = t->last.off = 0;
    t->ahead[i] = (zc_request){0};
    rc = read_request(t, &t->files[i], &t->ahead[i]);
    if (rc != 1) {
        if (rc < 0)
            t->pending = rc;
        tfile_close(&t->files[i]);
        t->heap[0] = t->heap[--t->nheap];
    }
    sift_down(t, 0);
    return 1;
}

int zc_trace_next(zc_trace *t, zc_request *req)
{
    int rc;

    if (!t || !req)
        return -ZC_EINVAL;
    if (t->status)
        return t->status;
    rc = t->merge ? next_merged(t, req) : next_in_turn(t, req);
    if (rc < 0)
        t->status = rc;
    return rc;
}

const char *zc_trace_where(const zc_trace *t, char *buf, size_t n)
{
    if (!buf || !n)
        return "";
    if (!t || !t->last.path)
        buf[0] = '\0';
    else if (t->last.line)
        snprintf(buf, n, "%s:%llu", t->last.path,
                 (unsigned long long)t->last.line);
    else if (!t->merge)
        snprintf(buf, n, "%s: offset %llu", t->last.path,
                 (unsigned long long)t->last.off);
    else
        snprintf(buf, n, "%s", t->last.path);
    return buf;
}

const char *zc_trace_error(const zc_trace *t)
{
    return t ? t->err : "";
}

const char *zc_trace_format(const zc_trace *t)
{
    return t && t->fmt ? t->fmt->name : NULL;
}

/* ---- header fields and resident samples -------------------------------- */

int zc__tf_meta_add(struct zc__tfile *f, const char *key, size_t klen,
                    const char *value, size_t vlen)
{
    struct zc__trace_info *in = f->info;
    char *kv;

    if (in->nmeta == in->meta_cap) {
        size_t cap = in->meta_cap ? 2 * in->meta_cap : 16;
        char **m = realloc(in->meta, cap * sizeof(*m));
        if (!m)
            goto nomem;
        in->meta = m;
        in->meta_cap = cap;
    }
    kv = malloc(klen + vlen + 2);
    if (!kv)
        goto nomem;
    memcpy(kv, key, klen);
    kv[klen] = '\0';
    memcpy(kv + klen + 1, value, vlen);
    kv[klen + 1 + vlen] = '\0';
    in->meta[in->nmeta++] = kv;
    return 0;
nomem:
    snprintf(f->err, f->errlen, "%s: out of memory", f->path);
    return -ZC_ENOMEM;
}

int zc__tf_resident(struct zc__tfile *f, uint32_t dev, uint64_t pages)
{
    struct zc__trace_info *in = f->info;

    for (size_t i = 0; i < in->nres; i++)
        if (in->res[i].dev == dev) {
            in->res[i].pages = pages;
            return 0;
        }
    if (in->nres == ZC__RESIDENT_MAX)
        return 1;
    if (in->nres == in->res_cap) {
        size_t cap = in->res_cap ? 2 * in->res_cap : 8;
        struct zc__resident *r = realloc(in->res, cap * sizeof(*r));
        if (!r) {
            snprintf(f->err, f->errlen, "%s: out of memory", f->path);
            return -ZC_ENOMEM;
        }
        in->res = r;
        in->res_cap = cap;
    }
    in->res[in->nres++] = (struct zc__resident){dev, pages};
    return 0;
}

const char *zc_trace_meta(const zc_trace *t, const char *key)
{
    if (!t || !key)
        return NULL;
    for (size_t i = t->info.nmeta; i-- > 0;)
        if (strcmp(t->info.meta[i], key) == 0)
            return t->info.meta[i] + strlen(key) + 1;
    return NULL;
}

int zc_trace_resident(const zc_trace *t, uint32_t dev, uint64_t *pages)
{
    if (!t)
        return 0;
    for (size_t i = 0; i < t->info.nres; i++)
        if (t->info.res[i].dev == dev) {
            if (pages)
                *pages = t->info.res[i].pages;
            return 1;
        }
    return 0;
}

void zc_trace_close(zc_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->files && i < t->nfiles; i++) {
        tfile_close(&t->files[i]);
        if (t->files[i].buf && t->files[i].buf != t->seqbuf)
            free(t->files[i].buf);
    }
    for (size_t i = 0; t->paths && i < t->nfiles; i++)
        free(t->paths[i]);
    free(t->paths);
    free(t->files);
    free(t->seqbuf);
    free(t->heap);
    free(t->ahead);
    for (size_t i = 0; i < t->info.nmeta; i++)
        free(t->info.meta[i]);
    free(t->info.meta);
    free(t->info.res);
    free(t);
}

int zc__tf_data_line(struct zc__tfile *f, const char **p, const char **end)
{
    const char *line;
    size_t len;
    int rc;

    for (;;) {
        rc = zc__tf_line(f, &line, &len);
        if (rc <= 0)
            return rc;
        *end = line + len;
        *p = zc__skip_space(line, *end);
        if (*p != *end && **p != '#')
            return 1;
    }
}
