/*
 * zcache-tracefs - turn a tracefs recording of one file system on one
 * block device into the streams of a libzcache recording: the block
 * trace, the access stream, the kernel's own page-cache op stream, and
 * the content pack that gives all of them their page bytes.
 *
 *   zcache-tracefs [OPTIONS] TRACE
 *
 * TRACE is text, one event a line, either as a tracefs instance's
 * trace_pipe prints it
 *
 *        cat-8503    [001] .....  7232.604675: mm_filemap_get_pages: dev=7:0
 * ...
 *
 * or as `trace-cmd report` prints it (no flags column, perhaps an
 * "INSTANCE:" in front, header lines such as "cpus=2"), with the events
 *
 *   block:block_bio_queue                   the Q event of blktrace
 *   filemap:mm_filemap_add_to_page_cache    a folio entered the page cache
 *   filemap:mm_filemap_delete_from_page_cache  a folio left it
 *   filemap:mm_filemap_get_pages            a read(2): the requested range
 *   filemap:mm_filemap_map_pages            fault-around of a mapping
 *   filemap:mm_filemap_fault                one page of a mapping
 *   ext4:ext4_da_write_begin, ext4_write_begin  a buffered write
 *   vmscan:mm_vmscan_*_reclaim_begin/_end   reclaim windows, per task
 *
 * as tools/zcache-record captures them.  Filemap events print the inode
 * in hex, ext4 events in decimal.  Outputs:
 *
 *   --blkparse FILE   the Q events in blkparse's default text format
 *                     (sequence numbers per CPU), after comment lines
 *                     saying that it was made from tracefs events, not by
 *                     blktrace; zstd-compressed when FILE ends in .zst
 *   --access FILE     the access stream (.zca; the text form when FILE
 *                     ends in .txt): one request per read, fault or write
 *                     event, and per run of cached pages of a fault-around
 *                     event, keyed (s_dev, inode, page); a fault is a
 *                     mapped read (ZC_REQ_MAPPED: it may read), a
 *                     fault-around run a fault-around record
 *                     (ZC_REQ_MAPPED | ZC_REQ_AROUND: the kernel mapped
 *                     pages it held and read none).  Before an access,
 *                     whenever it changed, a sample of the file system's
 *                     resident page count (adds minus deletes, 2^order
 *                     pages each, of its file pages).  With --sizes, reads
 *                     are clipped to the file's size: pages at or past
 *                     ceil(size / 4096) are dropped, a range wholly past
 *                     the end is dropped (counted); and every access
 *                     carries the file's size (ZC_REQ_SIZE), so the writer
 *                     puts a size record before the file's first access
 *                     and before any access after its size changed.  A
 *                     file's size starts at its --sizes entry (0 if it
 *                     has none: a file made during the run) and grows with
 *                     the writes and mapped accesses seen (the kernel
 *                     clips those itself).  Without --sizes no size is
 *                     known, none is written and reads are not clipped.
 *   --kernel-ops FILE the kernel's page-cache stream as an op stream: a
 *                     page added is a cleancache get (a miss brought it
 *                     in), a page deleted inside a reclaim window of its
 *                     task (or by kswapd or kdamond) is an eviction, so a
 *                     put with its bytes, and any other delete (truncate,
 *                     unlink) invalidates the page.  Pool 0 is the file
 *                     system (key: inode number), pool 1 the block
 *                     device's own page cache, where ext4 keeps metadata
 *                     (key: the device number, index: page of the device).
 *                     With --pack, puts refer to the pack's contents.
 *   --pack FILE       the content pack: every key a stream names mapped
 *                     to its content: (dev, ino, n) for file pages,
 *                     (dev, 0, n) for the block trace's pages and the
 *                     metadata pages.  The access stream's header names
 *                     it (pack=BASENAME) with its identity (pack_id=16
 *                     hex digits, zc_pack_writer_id()).
 *   --inodes FILE     "ex <INO>" for every inode the trace names: the
 *                     debugfs commands that list their extents.
 *
 * Page bytes come from the device image (--image) after the run: device
 * pages at their own offset, file pages through the extents of their
 * inode (--extents: lines "INO LBLK PBLK LEN [u]", u for unwritten
 * extents, which read as zeros).  A file page that no extent covers is a
 * hole (or was never written back): zeros, if the file still exists at
 * the end (--live: its "INO SIZE" list after the run; without it, a file
 * with an extent exists).  Pages of files deleted during the run cannot
 * be read: they get synthetic contents (zc_content "synth:1"), counted.
 * So the contents are exact for pages the workload did not change after
 * reading them.
 *
 * Times: nanoseconds from the trace's first event line, in both streams
 * (at most 9 decimals).  The events of one CPU must not go back in time
 * (an error); across CPUs, whose clocks may be a hair apart, an access
 * older than the previous one takes its time (counted as reordered).
 *
 * Bad input also is: a line longer than 1 MiB or holding a NUL byte, a
 * folio past 2^64 bytes, an RWBS other than blkparse's letters, and a
 * trace in which no event is of the device.
 *
 * Data layout: the inodes seen live in an open-addressing table (inode
 * -> size, flags); the keys the pack must map are appended to an array
 * that is sorted and made unique whenever it fills, and mapped in key
 * order at the end (which also reads the image in order).
 *
 * Lost events ("[LOST N EVENTS]", "EVENTS DROPPED") make the recording
 * incomplete: an error.  Bad input: "FILE:LINE: what", exit status 2;
 * failures to write, exit status 1.  Outputs are removed on failure:
 * only the regular files this process opened for writing (never a
 * device node, a FIFO, standard output, or a symlink or its target).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "cli.h"
#include "outfile.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-tracefs"
#define PAGE 4096u
#define MAX_CPUS 8192 /* Linux's NR_CPUS at most */
#define MAX_ORDER 20

/* ---- state ---------------------------------------------------------------
 */

struct extent {
    uint64_t ino, lblk, pblk, len;
    bool unwritten;
};

struct reclaim {
    uint32_t pid;
    int depth;
};

/* An inode of the traced file system.  size: the bytes the reads are
 * clipped to (the --sizes entry, grown by writes and mapped accesses). */
struct inode {
    uint64_t ino; /* 0: an empty slot */
    uint64_t size;
    bool live;  /* in --live: it exists after the run */
    bool named; /* some event names it (for --inodes) */
};

/* A key the pack maps.  ACCESS: the access stream names it (the distinct
 * pages of the stream are those keys). */
struct key {
    uint64_t ino, index;
    uint32_t dev;
    uint32_t flags;
};
#define KEY_ACCESS 1u

static struct {
    const char *in, *blkparse, *kops, *access, *pack, *image, *extents, *inodes,
        *sizes, *live;
    uint32_t dev; /* the kernel's dev_t of the device: maj << 20 | min */
    bool dev_set;
    uint32_t bdevfs; /* s_dev of the block-device pseudo file system */
    int level;
    uint64_t memory_limit, read_ahead_kb;
    bool memory_limit_set, read_ahead_set;
} o = {.bdevfs = 3, .level = 9};

static struct {
    uint64_t lines, bios, adds, deletes, evictions, invalidations;
    uint64_t gets, puts, synth_puts, markers, other;
    uint64_t reads, writes, mapped; /* access stream, in pages */
    uint64_t read_events, write_events, mapped_events;
    uint64_t past_eof, clipped_pages; /* reads dropped, pages cut */
    uint64_t samples, resident_below_zero, reordered;
    uint64_t ours; /* events of the device (or of its metadata pages) */
    uint64_t pack_keys, synth_keys, distinct;
    uint64_t kernel_hits, kernel_misses; /* accessed pages, by the kernel */
    uint64_t unmapped_fault_around;      /* map_pages pages not cached */
} n;

/* The text output, plain or zstd-compressed. */
struct out {
    FILE *f;
    ZSTD_CCtx *z;
    const char *path;
    char buf[1 << 16];
};

static struct out *bp;
static zc_ops_writer *ops;
static zc_access_writer *aw;
static zc_pack_writer *pw;
static zc_content *synth;
static int image_fd = -1;
static struct extent *ext;
static size_t next_;
static struct inode *itab;
static size_t itab_cap, itab_len;
static struct key *keys;
static size_t nkeys, keys_cap;
static uint64_t *samples;
static size_t samples_cap;
static struct reclaim *rec;
static size_t nrec;
static uint64_t seq[MAX_CPUS];      /* blkparse sequence numbers */
static uint64_t cpu_last[MAX_CPUS]; /* time of a CPU's last event, ns */
static uint64_t t0_ns, last_access_ns;
static bool have_t0, pool_init[2];
static int64_t resident;
static uint64_t last_sample;
static bool have_sample;
static uint64_t lineno;
static unsigned char page[PAGE];
static bool writing;

/* ---- errors -------------------------------------------------------------
 */

/* The outputs this process may remove on failure: regular files it opened
 * for writing (so created, or truncated: their old contents are gone
 * either way), by their identity as fstat saw it after the open.  Never a
 * device node, a FIFO, standard output, or a symlink (lstat before the
 * unlink must show the very file that was opened: a symlink shows itself,
 * and its target stays).  The library's writers open their files
 * themselves, so claim() opens each such path first, before them. */
struct owned {
    const char *path;
    dev_t dev;
    ino_t ino;
};

static struct owned owned[5];
static size_t nowned;

/* fd: path, just opened for writing.  Remember it if it is a regular
 * file. */
static void own_fd(const char *path, int fd)
{
    struct stat st;

    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
        nowned == sizeof(owned) / sizeof(owned[0]))
        return;
    owned[nowned++] = (struct owned){path, st.st_dev, st.st_ino};
}

/* Open path for writing (creating it) and remember it as own_fd() does,
 * before a library writer opens it again.  Only a regular file or a new
 * one: opening and closing a FIFO would end its reader's input.  (The
 * fstat decides; O_NONBLOCK keeps a FIFO made meanwhile from hanging.) */
static void claim(const char *path)
{
    struct stat st;
    int fd;

    if (!path || !strcmp(path, "-") ||
        (!stat(path, &st) && !S_ISREG(st.st_mode)))
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
              0666);
    if (fd >= 0) {
        own_fd(path, fd);
        close(fd);
    }
}

static void remove_outputs(void)
{
    for (size_t i = 0; i < nowned; i++) {
        struct stat st;
        if (!lstat(owned[i].path, &st) && S_ISREG(st.st_mode) &&
            st.st_dev == owned[i].dev && st.st_ino == owned[i].ino)
            unlink(owned[i].path);
    }
    nowned = 0;
}

/* Before an error exit: remove the outputs being written. */
static void undo(void)
{
    if (writing)
        remove_outputs();
}

static void bad(const char *what)
{
    fprintf(stderr, NAME ": %s:%" PRIu64 ": %s\n", o.in, lineno, what);
    if (writing)
        remove_outputs();
    exit(2);
}

static void *grow(void *p, size_t *cap, size_t size, size_t first)
{
    size_t c = *cap ? *cap * 2 : first;

    if (c < *cap || c > SIZE_MAX / size)
        die(1, "out of memory");
    p = realloc(p, c * size);
    if (!p)
        die(1, "out of memory");
    *cap = c;
    return p;
}

/* ---- input lines ----------------------------------------------------------
 */

#define LINE_MAX_BYTES (1u << 20)
static char linebuf[LINE_MAX_BYTES + 1];

/* The next line of f (line number ln of path) into linebuf, without its
 * newline, NUL-terminated; false at the end of input.  A line longer than
 * 1 MiB or holding a NUL byte is bad input (exit 2), a read error an error
 * (exit 1): neither is taken for the end. */
static bool read_line(FILE *f, const char *path, uint64_t ln)
{
    size_t len = 0;
    int c;

    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (len == LINE_MAX_BYTES)
            die(2, "%s:%" PRIu64 ": line longer than 1 MiB", path, ln);
        if (!c)
            die(2, "%s:%" PRIu64 ": a NUL byte in the line", path, ln);
        linebuf[len++] = (char)c;
    }
    if (c == EOF && ferror(f))
        die(1, "%s:%" PRIu64 ": read error: %s", path, ln, strerror(errno));
    linebuf[len] = '\0';
    return c != EOF || len;
}

/* Open an input, refusing a directory (fopen takes one, reads fail). */
static FILE *open_input(const char *path)
{
    FILE *f = fopen(path, "r");
    struct stat st;

    if (!f)
        die(2, "%s: %s", path, strerror(errno));
    if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode))
        die(2, "%s: is a directory", path);
    return f;
}

/* ---- numbers and fields (no sscanf: every overflow is caught) ------------
 */

/* An unsigned number in base 10 or 16 at *p (a "0x" is taken in base 16),
 * ending at a blank, the end, or one of the characters in `stop`. */
static bool take_u64(const char **p, int base, const char *stop, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int digits = 0;

    if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (;; s++, digits++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            break;
        if (x > (UINT64_MAX - d) / (unsigned)base)
            return false;
        x = x * (unsigned)base + d;
    }
    if (!digits || (*s && *s != ' ' && *s != '\t' && !strchr(stop, *s)))
        return false;
    *p = s;
    *v = x;
    return true;
}

/* The value of field `key` in an event's details, written "key=value" or
 * "key value" (filemap and ext4 events differ), or NULL. */
static const char *field(const char *d, const char *key)
{
    size_t len = strlen(key);

    for (const char *s = d; (s = strstr(s, key)) != NULL; s += len) {
        if (s != d && s[-1] != ' ' && s[-1] != '\t')
            continue;
        if (s[len] == '=')
            return s + len + 1;
        if (s[len] == ' ')
            return s + len + strspn(s + len, " ");
    }
    return NULL;
}

static uint64_t field_u64(const char *d, const char *key, int base,
                          const char *stop, const char *what)
{
    const char *v = field(d, key);
    uint64_t x;

    if (!v || !take_u64(&v, base, stop, &x))
        bad(what);
    return x;
}

/* "MAJ:MIN" or "MAJ,MIN" (ext4 prints a comma) into a dev_t. */
static uint32_t take_dev(const char **p, const char *what)
{
    uint64_t maj, min;

    if (!take_u64(p, 10, ":,", &maj) || (**p != ':' && **p != ','))
        bad(what);
    ++*p;
    if (!take_u64(p, 10, "", &min) || maj >= 4096 || min >= (1u << 20))
        bad(what);
    return (uint32_t)(maj << 20 | min);
}

static uint32_t field_dev(const char *d, const char *what)
{
    const char *v = field(d, "dev");

    if (!v)
        bad(what);
    return take_dev(&v, what);
}

/* ---- arguments ----------------------------------------------------------
 */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " NAME " [OPTIONS] TRACE\n"
            "\n"
            "Convert a tracefs recording (trace_pipe or trace-cmd report text) "
            "of one\n"
            "device into a block trace, an access stream, the kernel's op "
            "stream and a\n"
            "content pack.\n"
            "\n"
            "  --dev MAJ:MIN        the device (default: that of the first "
            "event)\n"
            "  --bdevfs N           s_dev of the block-device pseudo fs "
            "(default 3)\n"
            "  --blkparse FILE      the Q events as blkparse text (zstd if "
            "FILE ends in .zst)\n"
            "  --access FILE        the access stream (.zca; text if FILE "
            "ends in .txt)\n"
            "  --kernel-ops FILE    the kernel's page-cache stream (.zct, or "
            "text if .txt)\n"
            "  --pack FILE          the content pack of every key the streams "
            "name\n"
            "  --image IMG          the device image (page contents)\n"
            "  --extents FILE       'INO LBLK PBLK LEN [u]' lines: the files' "
            "blocks\n"
            "  --sizes FILE         'INO SIZE' lines before the run: reads are "
            "clipped to it,\n"
            "                       and the access stream records the "
            "files' sizes\n"
            "  --live FILE          'INO SIZE' lines after the run: files not "
            "in it were\n"
            "                       deleted (their pages get synthetic "
            "contents)\n"
            "  --memory-limit BYTES header field of the access stream\n"
            "  --read-ahead-kb N    header field of the access stream\n"
            "  --level N            .zct compression: 0, 1 or 9 (default 9)\n"
            "  --inodes FILE        write 'ex <INO>' for every inode in the "
            "trace\n"
            "                       (debugfs commands for the extents)\n"
            "  --help, --version\n");
}

static uint64_t number(const char *s, const char *what)
{
    const char *p = s;
    uint64_t v;

    if (!take_u64(&p, 10, "", &v) || *p)
        die(2, "%s: not a number: '%s'", what, s);
    return v;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);

    return a >= b && !strcmp(s + a - b, tail);
}

static void parse_args(int argc, char **argv)
{
    struct {
        const char *name;
        const char **dst;
    } paths[] = {{"--blkparse", &o.blkparse}, {"--kernel-ops", &o.kops},
                 {"--access", &o.access},     {"--pack", &o.pack},
                 {"--image", &o.image},       {"--inodes", &o.inodes},
                 {"--extents", &o.extents},   {"--sizes", &o.sizes},
                 {"--live", &o.live}};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t k;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(outfile_stdout_close(NAME));
        }
        if (!strcmp(a, "--version")) {
            printf(NAME " (libzcache %s)\n", zc_version());
            exit(outfile_stdout_close(NAME));
        }
        if (strncmp(a, "--", 2)) {
            if (o.in)
                die(2, "one trace at a time ('%s' and '%s')", o.in, a);
            o.in = a;
            continue;
        }
        if (!v) {
            static const char *const others[] = {
                "--dev", "--bdevfs", "--memory-limit", "--read-ahead-kb",
                "--level"};
            for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
                if (!strcmp(a, paths[k].name))
                    die(2, "option %s needs a value", a);
            for (k = 0; k < sizeof(others) / sizeof(others[0]); k++)
                if (!strcmp(a, others[k]))
                    die(2, "option %s needs a value", a);
            die(2, "unknown option '%s'", a);
        }
        i++;
        for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
            if (!strcmp(a, paths[k].name))
                break;
        if (k < sizeof(paths) / sizeof(paths[0])) {
            *paths[k].dst = v;
        } else if (!strcmp(a, "--dev")) {
            const char *p = v;
            uint64_t maj, min;
            if (!take_u64(&p, 10, ":", &maj) || *p++ != ':' ||
                !take_u64(&p, 10, "", &min) || *p || maj >= 4096 ||
                min >= (1u << 20))
                die(2, "--dev %s: want MAJ:MIN", v);
            o.dev = (uint32_t)(maj << 20 | min);
            o.dev_set = true;
        } else if (!strcmp(a, "--bdevfs")) {
            o.bdevfs = (uint32_t)number(v, "--bdevfs");
        } else if (!strcmp(a, "--memory-limit")) {
            o.memory_limit = number(v, "--memory-limit");
            o.memory_limit_set = true;
        } else if (!strcmp(a, "--read-ahead-kb")) {
            o.read_ahead_kb = number(v, "--read-ahead-kb");
            o.read_ahead_set = true;
        } else if (!strcmp(a, "--level")) {
            o.level = (int)number(v, "--level");
            if (o.level != 0 && o.level != 1 && o.level != 9)
                die(2, "--level %s: want 0, 1 or 9", v);
        } else {
            die(2, "unknown option '%s'", a);
        }
    }
    if (!o.in)
        die(2, "no trace given");
    if ((o.kops || o.pack) && (!o.image || !o.dev_set))
        die(2, "--kernel-ops and --pack need --image (the page contents) "
               "and --dev");
    if (o.pack && !strcmp(o.pack, "-"))
        die(2, "--pack: a file, not standard output");
}

/* ---- inodes ---------------------------------------------------------------
 */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void inode_table_grow(void)
{
    struct inode *old = itab;
    size_t old_cap = itab_cap;

    itab_cap = old_cap ? old_cap * 2 : 4096;
    if (itab_cap < old_cap || itab_cap > SIZE_MAX / sizeof(*itab) ||
        !(itab = calloc(itab_cap, sizeof(*itab))))
        die(1, "out of memory");
    for (size_t j = 0; j < old_cap; j++) {
        size_t i;
        if (!old[j].ino)
            continue;
        for (i = mix(old[j].ino) & (itab_cap - 1); itab[i].ino;
             i = (i + 1) & (itab_cap - 1))
            ;
        itab[i] = old[j];
    }
    free(old);
}

/* The inode's entry, made if absent (inode 0 does not exist). */
static struct inode *inode(uint64_t ino)
{
    size_t i;

    if (!ino)
        bad("inode 0");
    if ((itab_len + 1) * 4 > itab_cap * 3) /* at most 3/4 full */
        inode_table_grow();
    for (i = mix(ino) & (itab_cap - 1); itab[i].ino;
         i = (i + 1) & (itab_cap - 1))
        if (itab[i].ino == ino)
            return &itab[i];
    itab[i].ino = ino;
    itab_len++;
    return &itab[i];
}

/* "INO SIZE" lines into the table: sizes (live false) or the list of
 * files left after the run (live true, sizes untouched). */
static void load_sizes(const char *path, bool live)
{
    FILE *f = open_input(path);
    uint64_t ln = 0;

    while (read_line(f, path, ++ln)) {
        const char *p = linebuf + strspn(linebuf, " \t");
        uint64_t ino, size;
        struct inode *e;
        if (*p == '#' || *p == '\0')
            continue;
        if (!take_u64(&p, 10, "", &ino) || !ino ||
            !(p += strspn(p, " \t"), take_u64(&p, 10, "", &size)) || *p)
            die(2, "%s:%" PRIu64 ": want 'INO SIZE'", path, ln);
        e = inode(ino);
        if (live)
            e->live = true;
        else if (size > e->size)
            e->size = size; /* hard links list an inode twice */
    }
    fclose(f);
}

/* ---- extents ------------------------------------------------------------
 */

static int ext_cmp(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;

    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

static void load_extents(void)
{
    FILE *f = open_input(o.extents);
    size_t ecap = 0;
    uint64_t ln = 0;

    while (read_line(f, o.extents, ++ln)) {
        struct extent e = {0};
        const char *p = linebuf;
        uint64_t *v[] = {&e.ino, &e.lblk, &e.pblk, &e.len};
        bool ok = true;
        if (linebuf[0] == '#' || linebuf[0] == '\0')
            continue;
        for (size_t k = 0; k < 4 && ok; k++) {
            p += strspn(p, " \t");
            ok = take_u64(&p, 10, "", v[k]);
        }
        p += strspn(p, " \t");
        if (ok && *p == 'u') {
            e.unwritten = true;
            p++;
        }
        if (!ok || *p || !e.len || e.lblk + e.len < e.lblk ||
            e.pblk > UINT64_MAX / PAGE - e.len)
            die(2, "%s:%" PRIu64 ": want 'INO LBLK PBLK LEN [u]'", o.extents,
                ln);
        if (next_ == ecap)
            ext = grow(ext, &ecap, sizeof(*ext), 1024);
        ext[next_++] = e;
    }
    fclose(f);
    qsort(ext, next_, sizeof(*ext), ext_cmp);
}

/* The extent holding (ino, lblk), or NULL. */
static const struct extent *find_extent(uint64_t ino, uint64_t lblk)
{
    size_t lo = 0, hi = next_;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct extent *e = &ext[mid];
        if (e->ino < ino || (e->ino == ino && e->lblk + e->len <= lblk))
            lo = mid + 1;
        else if (e->ino > ino || e->lblk > lblk)
            hi = mid;
        else
            return e;
    }
    return NULL;
}

/* Whether ino still exists after the run: in --live, or, without it,
 * owning an extent.  ext4's reserved inodes (below 11: the journal, the
 * resize inode, ...) always exist, and find(1) never lists them. */
#define EXT4_FIRST_INO 11

static bool alive(uint64_t ino)
{
    size_t lo = 0, hi = next_;

    if (ino < EXT4_FIRST_INO)
        return true;
    if (o.live)
        return inode(ino)->live;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ext[mid].ino < ino)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < next_ && ext[lo].ino == ino;
}

/* ---- contents -----------------------------------------------------------
 */

static void read_image(uint64_t off)
{
    ssize_t got = pread(image_fd, page, PAGE, (off_t)off);

    if (got < 0)
        die(1, "%s: %s", o.image, strerror(errno));
    if (got < (ssize_t)PAGE) /* past the end: zeros, as a device reads */
        memset(page + got, 0, PAGE - (size_t)got);
}

/* page[] = the content of key (dev, ino, index) (ino 0: a device page).
 * Returns true when the content is synthetic (a deleted file's page). */
static bool content(uint32_t dev, uint64_t ino, uint64_t index)
{
    const struct extent *e;
    char err[256];
    int rc;

    if (!ino) {
        if (index > UINT64_MAX / PAGE)
            bad("a device page past 2^64 bytes");
        read_image(index * PAGE);
        return false;
    }
    if ((e = find_extent(ino, index)) != NULL) {
        if (e->unwritten)
            memset(page, 0, PAGE);
        else
            read_image((e->pblk + index - e->lblk) * PAGE);
        return false;
    }
    if (alive(ino)) { /* a hole, or past the end */
        memset(page, 0, PAGE);
        return false;
    }
    if (!synth && zc_content_open("synth:1", PAGE, &synth, err, sizeof(err)))
        die(1, "synth:1: %s", err);
    rc = zc_content_file_page(synth, dev, ino, index, 0, page);
    if (rc)
        die(1, "synth:1: %s", zc_strerror(rc));
    return true;
}

/* ---- keys for the pack ----------------------------------------------------
 */

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sort and merge equal keys (their flags or'ed). */
static void keys_unique(void)
{
    size_t w = 0;

    if (!nkeys) /* keys is NULL then */
        return;
    qsort(keys, nkeys, sizeof(*keys), key_cmp);
    for (size_t r = 0; r < nkeys; r++) {
        if (w && !key_cmp(&keys[w - 1], &keys[r]))
            keys[w - 1].flags |= keys[r].flags;
        else
            keys[w++] = keys[r];
    }
    nkeys = w;
}

static void key_add(uint32_t dev, uint64_t ino, uint64_t index, uint32_t flags)
{
    if (!pw && !(flags & KEY_ACCESS))
        return;
    if (nkeys == keys_cap) {
        if (keys_cap)
            keys_unique();
        if (!keys_cap || nkeys * 2 > keys_cap)
            keys = grow(keys, &keys_cap, sizeof(*keys), 1 << 16);
    }
    keys[nkeys++] =
        (struct key){.dev = dev, .ino = ino, .index = index, .flags = flags};
}

static void map_keys(void)
{
    keys_unique();
    for (size_t i = 0; i < nkeys; i++) {
        const struct key *k = &keys[i];
        n.distinct += (k->flags & KEY_ACCESS) != 0;
        if (!pw)
            continue;
        n.synth_keys += content(k->dev, k->ino, k->index);
        if (zc_pack_map(pw, k->dev, k->ino, k->index, page, NULL))
            die(1, "%s", zc_pack_writer_error(pw));
        n.pack_keys++;
    }
}

/* ---- outputs ------------------------------------------------------------
 */

static void out_write(struct out *w, const void *p, size_t len)
{
    if (!w->z) {
        if (fwrite(p, 1, len, w->f) != len)
            die(1, "%s: write error", w->path);
        return;
    }
    ZSTD_inBuffer in = {p, len, 0};
    while (in.pos < in.size) {
        ZSTD_outBuffer ob = {w->buf, sizeof(w->buf), 0};
        size_t r = ZSTD_compressStream2(w->z, &ob, &in, ZSTD_e_continue);
        if (ZSTD_isError(r))
            die(1, "%s: zstd: %s", w->path, ZSTD_getErrorName(r));
        if (fwrite(w->buf, 1, ob.pos, w->f) != ob.pos)
            die(1, "%s: write error", w->path);
    }
}

static void out_printf(struct out *w, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof(line))
        die(1, "%s: a line too long to write", w->path);
    out_write(w, line, (size_t)len);
}

static struct out *out_open(const char *path)
{
    struct out *w = calloc(1, sizeof(*w));

    if (!w)
        die(1, "out of memory");
    w->path = path;
    w->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!w->f)
        die(1, "%s: %s", path, strerror(errno));
    if (w->f != stdout)
        own_fd(path, fileno(w->f));
    if (ends_with(path, ".zst")) {
        w->z = ZSTD_createCCtx();
        if (!w->z ||
            ZSTD_isError(
                ZSTD_CCtx_setParameter(w->z, ZSTD_c_compressionLevel, 19)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(w->z, ZSTD_c_checksumFlag, 1)))
            die(1, "%s: zstd cannot start", path);
    }
    return w;
}

static void out_close(struct out *w)
{
    if (w->z) {
        size_t r;
        do {
            ZSTD_inBuffer in = {NULL, 0, 0};
            ZSTD_outBuffer ob = {w->buf, sizeof(w->buf), 0};
            r = ZSTD_compressStream2(w->z, &ob, &in, ZSTD_e_end);
            if (ZSTD_isError(r))
                die(1, "%s: zstd: %s", w->path, ZSTD_getErrorName(r));
            if (fwrite(w->buf, 1, ob.pos, w->f) != ob.pos)
                die(1, "%s: write error", w->path);
        } while (r);
        ZSTD_freeCCtx(w->z);
    }
    if (w->f == stdout ? fflush(w->f) : fclose(w->f))
        die(1, "%s: write error", w->path);
    free(w);
}

static void emit(zc_op *op)
{
    if (!ops)
        return;
    if (!pool_init[op->pool]) {
        zc_op init = {
            .kind = ZC_OP_INIT_FS, .pool = op->pool, .page_size = PAGE};
        if (zc_ops_write(ops, &init))
            die(1, "%s", zc_ops_writer_error(ops));
        pool_init[op->pool] = true;
    }
    if (zc_ops_write(ops, op))
        die(1, "%s", zc_ops_writer_error(ops));
}

/* ---- events: page cache -------------------------------------------------
 */

/* ---- the kernel's page cache, page by page ------------------------------
 *
 * Which file pages the kernel holds, from its add and delete events, so
 * that every access can be told a kernel hit or miss, and fault-around
 * ranges cut to the pages the kernel actually mapped.  A page counts as a
 * miss of an access when it was not cached, or when the accessing task
 * itself added it since its previous access: get_pages fires after the
 * pages a read missed were added (DESIGN.md), and readahead adds a read
 * does beyond its own range are hits of the next read.  Events are
 * numbered in the order they are read (tracefs merges the CPUs by time).
 */
struct cached {
    uint64_t ino, index; /* ino 0: an empty slot */
    uint64_t add_event;
    uint32_t add_pid;
    bool in;
};

static struct cached *ctab;
static uint64_t cmask, cused, event_no;

struct task {
    uint32_t pid; /* 0: an empty slot */
    uint64_t last_access;
};

static struct task *ttab;
static uint64_t tmask, tused;

static struct cached *cached_slot(uint64_t ino, uint64_t index, bool make)
{
    uint64_t i;

    if (!ctab || (cused + 1) * 2 > cmask + 1) {
        uint64_t nslots = ctab ? (cmask + 1) * 2 : 1 << 16;
        struct cached *t = calloc(nslots, sizeof(*t));
        if (!t)
            die(1, "out of memory");
        for (uint64_t j = 0; ctab && j <= cmask; j++) {
            if (!ctab[j].ino)
                continue;
            for (i = mix(ctab[j].ino * 0x9E3779B97F4A7C15ull ^ ctab[j].index) &
                     (nslots - 1);
                 t[i].ino; i = (i + 1) & (nslots - 1))
                ;
            t[i] = ctab[j];
        }
        free(ctab);
        ctab = t;
        cmask = nslots - 1;
    }
    for (i = mix(ino * 0x9E3779B97F4A7C15ull ^ index) & cmask; ctab[i].ino;
         i = (i + 1) & cmask)
        if (ctab[i].ino == ino && ctab[i].index == index)
            return &ctab[i];
    if (!make)
        return NULL;
    cused++;
    ctab[i].ino = ino;
    ctab[i].index = index;
    return &ctab[i];
}

static struct task *task_of(uint32_t pid)
{
    uint64_t i;

    if (!ttab || (tused + 1) * 2 > tmask + 1) {
        uint64_t nslots = ttab ? (tmask + 1) * 2 : 1024;
        struct task *t = calloc(nslots, sizeof(*t));
        if (!t)
            die(1, "out of memory");
        for (uint64_t j = 0; ttab && j <= tmask; j++) {
            if (!ttab[j].pid)
                continue;
            for (i = mix(ttab[j].pid) & (nslots - 1); t[i].pid;
                 i = (i + 1) & (nslots - 1))
                ;
            t[i] = ttab[j];
        }
        free(ttab);
        ttab = t;
        tmask = nslots - 1;
    }
    for (i = mix(pid) & tmask; ttab[i].pid; i = (i + 1) & tmask)
        if (ttab[i].pid == pid)
            return &ttab[i];
    tused++;
    ttab[i].pid = pid ? pid : UINT32_MAX; /* pid 0 (idle) marks empty */
    return &ttab[i];
}

static void cached_set(uint64_t ino, uint64_t index, bool in, uint32_t pid)
{
    struct cached *c = cached_slot(ino, index, in);

    if (!c)
        return;
    c->in = in;
    if (in) {
        c->add_event = event_no;
        c->add_pid = pid;
    }
}

/* Whether the kernel had page (ino, index) when task t accessed it. */
static bool kernel_hit(uint64_t ino, uint64_t index, const struct task *t,
                       uint32_t pid)
{
    const struct cached *c = cached_slot(ino, index, false);

    return c && c->in && !(c->add_pid == pid && c->add_event > t->last_access);
}

static int *reclaim_depth(uint32_t pid)
{
    size_t cap = nrec;

    for (size_t i = 0; i < nrec; i++)
        if (rec[i].pid == pid)
            return &rec[i].depth;
    rec = realloc(rec, (cap + 1) * sizeof(*rec));
    if (!rec)
        die(1, "out of memory");
    rec[nrec].pid = pid;
    rec[nrec].depth = 0;
    return &rec[nrec++].depth;
}

/* The device of an event: the first one seen, unless --dev says.  The
 * block-device pseudo file system never is. */
static bool our_dev(uint32_t dev)
{
    if (!o.dev_set && dev != o.bdevfs) {
        o.dev = dev;
        o.dev_set = true;
    }
    if (!o.dev_set || dev != o.dev)
        return false;
    n.ours++;
    return true;
}

/* "dev MAJ:MIN ino HEX pfn=0x.. ofs=BYTES order=K" (order: absent on
 * kernels before large folios) */
static void filemap(bool add, const char *d, const char *comm, uint32_t pid)
{
    const char *what = "a filemap add/delete event that does not parse";
    uint32_t sdev = field_dev(d, what);
    uint64_t ino = field_u64(d, "ino", 16, "", what);
    uint64_t ofs = field_u64(d, "ofs", 10, "", what);
    uint64_t order =
        field(d, "order") ? field_u64(d, "order", 10, "", what) : 0;
    uint64_t pages;
    zc_op op = {0};
    bool meta, evict;

    if (order > MAX_ORDER || ofs % PAGE)
        bad(what);
    pages = 1ull << order;
    if (ofs > UINT64_MAX - (pages * PAGE - 1))
        bad("a filemap add/delete event whose folio runs past 2^64 bytes");
    meta = o.dev_set && sdev == o.bdevfs && ino == o.dev;
    if (!meta && !our_dev(sdev)) {
        n.other++;
        return;
    }
    if (meta)
        n.ours++;
    if (add)
        n.adds++;
    else
        n.deletes++;
    evict = !add && (*reclaim_depth(pid) > 0 || strstr(comm, "kswapd") ||
                     strstr(comm, "kdamond"));
    if (!add) {
        if (evict)
            n.evictions++;
        else
            n.invalidations++;
    }
    if (!meta) {
        inode(ino)->named = true;
        resident += add ? (int64_t)pages : -(int64_t)pages;
        if (resident < 0) { /* a page cached before the recording began */
            n.resident_below_zero++;
            resident = 0;
        }
    }
    op.pool = meta ? 1 : 0;
    op.key = zc_filekey_from_ino(ino);
    for (uint64_t k = 0; k < pages; k++) {
        op.index = ofs / PAGE + k;
        if (add) {
            op.kind = ZC_OP_GET;
            n.gets++;
        } else if (!evict) {
            op.kind = ZC_OP_INVALIDATE_PAGE;
        } else {
            op.kind = ZC_OP_PUT;
            op.page = page;
            n.puts++;
            if (ops && content(o.dev, meta ? 0 : ino, op.index))
                n.synth_puts++;
        }
        key_add(o.dev, meta ? 0 : ino, op.index, 0);
        if (!meta)
            cached_set(ino, op.index, add, pid);
        emit(&op);
    }
}

/* "MAJ,MIN RWBS SECTOR + COUNT [COMM]" */
static void bio(const char *d, unsigned cpu, uint32_t pid, uint64_t rel)
{
    const char *what = "a block_bio_queue event that does not parse";
    const char *p = d + strspn(d, " ");
    const char *comm;
    uint32_t dev = take_dev(&p, what);
    uint64_t sector, count;
    char rwbs[16];
    size_t len;

    p += strspn(p, " ");
    len = strcspn(p, " ");
    if (!len || len >= sizeof(rwbs))
        bad(what);
    if (strspn(p, "RWDFSMAN") != len) /* blkparse's RWBS letters */
        bad("a block_bio_queue event with an RWBS other than blkparse's "
            "letters RWDFSMAN");
    memcpy(rwbs, p, len);
    rwbs[len] = '\0';
    p += len + strspn(p + len, " ");
    if (!take_u64(&p, 10, "", &sector))
        bad(what);
    p += strspn(p, " ");
    if (*p++ != '+')
        bad(what);
    p += strspn(p, " ");
    if (!take_u64(&p, 10, "", &count) || count > UINT32_MAX ||
        sector > (UINT64_MAX >> 9) - count)
        bad(what);
    if (!our_dev(dev)) {
        n.other++;
        return;
    }
    n.bios++;
    if (count && strchr(rwbs, 'D') == NULL) /* discards touch no pages */
        for (uint64_t pg = sector * 512 / PAGE;
             pg <= ((sector + count) * 512 - 1) / PAGE; pg++)
            key_add(dev, 0, pg, 0);
    if (!bp)
        return;
    comm = strchr(p, '[');
    out_printf(bp,
               "%3u,%-3u %2u %8" PRIu64 " %5" PRIu64 ".%09" PRIu64
               " %5u  Q %3s %" PRIu64 " + %" PRIu64 " %s\n",
               dev >> 20, dev & 0xfffff, cpu, ++seq[cpu], rel / 1000000000,
               rel % 1000000000, pid, rwbs, sector, count, comm ? comm : "[?]");
}

/* ---- events: accesses ---------------------------------------------------
 */

enum access_kind { READ, MAPPED_RANGE, FAULT, WRITE };

/* One request of the access stream; e: its inode, whose size it carries
 * if sizes are known (the writer records a size where it changed). */
static void write_access(uint64_t rel, const struct inode *e, uint64_t first,
                         uint64_t pages, enum access_kind kind)
{
    static const uint32_t flags[] = {
        [MAPPED_RANGE] = ZC_REQ_MAPPED | ZC_REQ_AROUND,
        [FAULT] = ZC_REQ_MAPPED,
        [WRITE] = 0,
    };
    uint64_t ino = e->ino;
    zc_request req = {.dev = o.dev,
                      .ino = ino,
                      .offset = first * PAGE,
                      .length = pages * PAGE,
                      .write = kind == WRITE,
                      .flags = flags[kind]};

    if (o.sizes) {
        req.flags |= ZC_REQ_SIZE;
        req.file_size = e->size;
    }

    /* Events of one CPU never go back in time (line() refuses that), so
     * this is a reordering across CPUs, their clocks a hair apart: the
     * access takes the time of the previous one. */
    if (rel < last_access_ns) {
        n.reordered++;
        rel = last_access_ns;
    }
    last_access_ns = rel;
    req.time_ns = rel;
    for (uint64_t k = 0; k < pages; k++)
        key_add(o.dev, ino, first + k, KEY_ACCESS);
    if ((uint64_t)resident != last_sample || !have_sample) {
        if (samples_cap == n.samples)
            samples = grow(samples, &samples_cap, sizeof(*samples), 4096);
        samples[n.samples++] = (uint64_t)resident;
        last_sample = (uint64_t)resident;
        have_sample = true;
        if (aw && zc_access_write_resident(aw, rel, o.dev, last_sample))
            die(1, "%s", zc_access_writer_error(aw));
    }
    if (aw && zc_access_write(aw, &req))
        die(1, "%s", zc_access_writer_error(aw));
}

/* get_pages, map_pages: "dev=MAJ:MIN ino=HEX ofs=FIRST-LAST" (bytes);
 * fault: "dev=MAJ:MIN ino=HEX ofs=BYTES"; ext4 writes: "dev MAJ,MIN ino
 * DEC pos BYTES len BYTES". */
static void on_access(enum access_kind kind, const char *d, uint64_t rel,
                      uint32_t pid)
{
    const char *what = kind == WRITE
                           ? "an ext4 write_begin event that does not parse"
                           : "a filemap access event that does not parse";
    uint32_t dev = field_dev(d, what);
    uint64_t ino, first, last, end;
    struct inode *e;
    struct task *t;

    if (kind == WRITE) {
        uint64_t pos = field_u64(d, "pos", 10, "", what);
        uint64_t len = field_u64(d, "len", 10, "", what);
        ino = field_u64(d, "ino", 10, "", what);
        if (pos > UINT64_MAX / 2 || len > UINT32_MAX)
            bad(what);
        if (!len) {
            n.other++;
            return;
        }
        first = pos / PAGE;
        last = (pos + len - 1) / PAGE;
        end = pos + len;
    } else {
        const char *v = field(d, "ofs");
        uint64_t a, b = 0;
        ino = field_u64(d, "ino", 16, "", what);
        if (!v || !take_u64(&v, 10, "-", &a) || a % PAGE || a > UINT64_MAX / 2)
            bad(what);
        if (kind == FAULT) {
            b = a + PAGE - 1;
        } else if (*v++ != '-' || !take_u64(&v, 10, "", &b) || b < a ||
                   b > UINT64_MAX / 2 || (b + 1) % PAGE) {
            bad(what);
        }
        first = a / PAGE;
        last = b / PAGE;
        end = (last + 1) * PAGE;
    }
    if (!our_dev(dev)) {
        n.other++;
        return;
    }
    e = inode(ino);
    e->named = true;
    if (kind != READ) {
        /* Writes grow the file; the kernel clipped mapped ranges to the
         * size it knew, which may be past ours (truncate up). */
        if (end > e->size)
            e->size = end;
    } else if (o.sizes) {
        uint64_t limit = (e->size + PAGE - 1) / PAGE; /* pages of the file */
        if (first >= limit) {
            n.past_eof++;
            n.clipped_pages += last - first + 1;
            return;
        }
        if (last >= limit) {
            n.clipped_pages += last - limit + 1;
            last = limit - 1;
        }
    }
    t = task_of(pid);
    if (kind == MAPPED_RANGE) {
        /* Fault-around maps the pages the kernel has and skips the rest:
         * only those are accessed.  One request per run of them. */
        uint64_t run = first;
        n.mapped_events++;
        for (uint64_t pg = first; pg <= last + 1; pg++) {
            const struct cached *c =
                pg <= last ? cached_slot(ino, pg, false) : NULL;
            if (c && c->in)
                continue;
            if (pg > run) {
                n.mapped += pg - run;
                n.kernel_hits += pg - run;
                write_access(rel, e, run, pg - run, kind);
            }
            if (pg <= last)
                n.unmapped_fault_around++;
            run = pg + 1;
        }
        t->last_access = event_no;
        return;
    }
    for (uint64_t pg = first; pg <= last; pg++) {
        bool hit;
        if (kind == READ) {
            hit = kernel_hit(ino, pg, t, pid);
        } else { /* a fault or a write: the page is added after the event */
            const struct cached *c = cached_slot(ino, pg, false);
            hit = c && c->in;
        }
        if (hit)
            n.kernel_hits++;
        else
            n.kernel_misses++;
    }
    t->last_access = event_no;
    switch (kind) {
    case READ: n.read_events++, n.reads += last - first + 1; break;
    case WRITE: n.write_events++, n.writes += last - first + 1; break;
    default: n.mapped_events++, n.mapped += last - first + 1; break;
    }
    write_access(rel, e, first, last - first + 1, kind);
}

/* ---- lines ---------------------------------------------------------------
 */

/* Lines of `trace-cmd report` that are no events. */
static bool report_header(const char *p)
{
    return !strncmp(p, "cpus=", 5) || !strncmp(p, "version = ", 10) ||
           (!strncmp(p, "CPU ", 4) && strstr(p, " is empty")) ||
           !strncmp(p, "trace-cmd:", 10);
}

/*  trace_pipe:  "   TASK-PID   [CPU] FLAGS SECONDS.FRACTION: EVENT: DETAILS"
 *  trace-cmd:   "[INSTANCE:] TASK-PID [CPU] SECONDS.FRACTION: EVENT: DETAILS"
 */
static void line(char *s)
{
    char *p, *q, *cpu_open, *task;
    const char *c;
    unsigned cpu;
    uint64_t pid, cpu64, sec, frac = 0, t_ns, rel;
    int digits = 0;

    s[strcspn(s, "\r\n")] = '\0';
    p = s + strspn(s, " \t");
    if (*p == '#' || *p == '\0' || report_header(p))
        return;
    if ((strstr(p, "[LOST ") && strstr(p, " EVENTS]")) ||
        strstr(p, "EVENTS DROPPED"))
        bad("the recording lost events (its buffer overflowed): it is "
            "incomplete");
    /* The CPU field: the first " [digits]" */
    for (cpu_open = strstr(p, " ["); cpu_open;
         cpu_open = strstr(cpu_open + 1, " [")) {
        size_t d = strspn(cpu_open + 2, "0123456789");
        if (d && cpu_open[2 + d] == ']')
            break;
    }
    if (!cpu_open)
        bad("not a tracefs event line");
    *cpu_open = '\0';
    /* TASK-PID: the task name may hold blanks and dashes; the pid is after
     * the last dash.  trace-cmd puts "INSTANCE:" and blanks before it. */
    q = strrchr(p, '-');
    if (!q)
        bad("no TASK-PID before the CPU");
    *q = '\0';
    c = q + 1;
    if (!take_u64(&c, 10, "", &pid) || c[strspn(c, " ")] || pid > UINT32_MAX)
        bad("no TASK-PID before the CPU");
    task = p + strspn(p, " ");
    q = task + strcspn(task, " ");
    if (q > task && q[-1] == ':' && q[strspn(q, " ")]) /* "INSTANCE:" */
        task = q + strspn(q, " ");
    c = cpu_open + 2;
    if (!take_u64(&c, 10, "]", &cpu64))
        bad("a bad CPU number");
    if (cpu64 >= MAX_CPUS)
        bad("a CPU number beyond 8191");
    cpu = (unsigned)cpu64;
    p = (char *)c + 1;
    /* Optional flags (trace_pipe), then the timestamp "S.F:" */
    p += strspn(p, " ");
    q = p + strcspn(p, " ");
    if (q > p && q[-1] != ':')
        p = q + strspn(q, " ");
    c = p;
    if (!take_u64(&c, 10, ".", &sec) || *c != '.' ||
        sec > UINT64_MAX / 1000000000u - 1)
        bad("no timestamp");
    for (c++; *c >= '0' && *c <= '9'; c++, digits++)
        if (digits < 9)
            frac = frac * 10 + (uint64_t)(*c - '0');
    if (*c != ':' || !digits)
        bad("no timestamp");
    if (digits > 9)
        bad("a timestamp with more than 9 decimals (finer than ns)");
    for (; digits < 9; digits++)
        frac *= 10;
    t_ns = sec * 1000000000u + frac;
    if (!have_t0) {
        t0_ns = t_ns;
        have_t0 = true;
    }
    if (t_ns < t0_ns)
        bad("an event older than the first one (clocks of the CPUs "
            "disagree: record with trace_clock mono)");
    if (t_ns < cpu_last[cpu])
        bad("time goes backwards: an event older than its CPU's previous "
            "one");
    cpu_last[cpu] = t_ns;
    rel = t_ns - t0_ns;
    p = (char *)c + 1;
    p += strspn(p, " ");
    q = strchr(p, ':');
    if (!q || q == p)
        bad("no event name");
    *q = '\0';
    q++;
    q += strspn(q, " ");
    n.lines++;
    event_no++;
    if (!strcmp(p, "block_bio_queue")) {
        bio(q, cpu, (uint32_t)pid, rel);
    } else if (!strcmp(p, "mm_filemap_add_to_page_cache")) {
        filemap(true, q, task, (uint32_t)pid);
    } else if (!strcmp(p, "mm_filemap_delete_from_page_cache")) {
        filemap(false, q, task, (uint32_t)pid);
    } else if (!strcmp(p, "mm_filemap_get_pages")) {
        on_access(READ, q, rel, (uint32_t)pid);
    } else if (!strcmp(p, "mm_filemap_map_pages")) {
        on_access(MAPPED_RANGE, q, rel, (uint32_t)pid);
    } else if (!strcmp(p, "mm_filemap_fault")) {
        on_access(FAULT, q, rel, (uint32_t)pid);
    } else if (!strcmp(p, "ext4_da_write_begin") ||
               !strcmp(p, "ext4_write_begin")) {
        on_access(WRITE, q, rel, (uint32_t)pid);
    } else if (strstr(p, "_reclaim_begin")) {
        ++*reclaim_depth((uint32_t)pid);
    } else if (strstr(p, "_reclaim_end")) {
        int *d = reclaim_depth((uint32_t)pid);
        if (*d > 0)
            --*d;
    } else if (!strcmp(p, "tracing_mark_write")) {
        n.markers++;
    } else {
        n.other++;
    }
}

/* ---- main ---------------------------------------------------------------
 */

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void write_inodes(void)
{
    FILE *f = fopen(o.inodes, "w");
    uint64_t *list = malloc((itab_len ? itab_len : 1) * sizeof(*list));
    size_t len = 0;

    if (f)
        own_fd(o.inodes, fileno(f));
    if (!f || !list)
        die(1, "%s: %s", o.inodes, f ? "out of memory" : strerror(errno));
    for (size_t i = 0; i < itab_cap; i++)
        if (itab[i].ino && itab[i].named)
            list[len++] = itab[i].ino;
    qsort(list, len, sizeof(*list), u64_cmp);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "ex <%" PRIu64 ">\n", list[i]);
    free(list);
    if (fclose(f))
        die(1, "%s: write error", o.inodes);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void open_outputs(void)
{
    char err[512], meta[1024];
    int len = 0;

    if (o.blkparse) {
        bp = out_open(o.blkparse);
        out_printf(bp,
                   "# blkparse default text format, made by " NAME
                   " from tracefs events\n"
                   "# (block:block_bio_queue, the Q event) of %s; not "
                   "blktrace output.\n"
                   "# Times are relative to the trace's first event; "
                   "sequence numbers count per CPU.\n",
                   base_name(o.in));
    }
    claim(o.pack);
    claim(o.kops);
    claim(o.access);
    if (o.pack && zc_pack_writer_open(o.pack, PAGE, 0, &pw, err, sizeof(err)))
        die(1, "%s", err);
    if (o.kops) {
        zc_ops_writer_options wo = {.page_size = PAGE,
                                    .level = o.level ? o.level : -1,
                                    .window = 65536,
                                    .pack = pw};
        snprintf(meta, sizeof(meta),
                 "format=tracefs-filemap\nsource=%s\nimage=%s\n"
                 "pools=0 the file system (key inode), 1 the block device's "
                 "metadata pages\n",
                 base_name(o.in), base_name(o.image));
        wo.text = ends_with(o.kops, ".txt");
        wo.meta = meta;
        if (zc_ops_writer_open(o.kops, &wo, &ops, err, sizeof(err)))
            die(1, "%s", err);
    }
    if (o.access) {
        zc_access_writer_options ao = {.page_size = PAGE,
                                       .text = ends_with(o.access, ".txt")};
        len = snprintf(meta, sizeof(meta),
                       "format=tracefs-access\n"
                       "source=%s\n",
                       base_name(o.in));
        if (pw) /* the pack's name and identity */
            len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                            "pack=%s\npack_id=%016" PRIx64 "\n",
                            base_name(o.pack), zc_pack_writer_id(pw));
        if (o.memory_limit_set)
            len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                            "memory_limit=%" PRIu64 "\n", o.memory_limit);
        if (o.read_ahead_set)
            len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                            "read_ahead_kb=%" PRIu64 "\n", o.read_ahead_kb);
        if (len < 0 || (size_t)len >= sizeof(meta))
            die(2, "the access stream's header is too long");
        ao.meta = meta;
        if (zc_access_writer_open(o.access, &ao, &aw, err, sizeof(err)))
            die(1, "%s", err);
    }
}

static void close_outputs(void)
{
    char err[512];

    if (bp)
        out_close(bp);
    if (ops && zc_ops_writer_close(ops, err, sizeof(err)))
        die(1, "%s", err);
    if (aw && zc_access_writer_close(aw, err, sizeof(err)))
        die(1, "%s", err);
    map_keys(); /* after the ops writer: it adds the puts' contents */
    if (pw && zc_pack_writer_close(pw, err, sizeof(err)))
        die(1, "%s", err);
    if (o.inodes)
        write_inodes();
}

static void summary(void)
{
    const char *in = base_name(o.in);
    uint64_t med = 0, min = 0, max = 0;

    if (n.samples) {
        qsort(samples, n.samples, sizeof(*samples), u64_cmp);
        min = samples[0];
        med = samples[n.samples / 2];
        max = samples[n.samples - 1];
    }
    fprintf(stderr,
            NAME ": %s: %" PRIu64 " bios, %" PRIu64 " adds, %" PRIu64
                 " deletes (%" PRIu64 " evictions, %" PRIu64
                 " truncations); kernel stream: %" PRIu64 " gets, %" PRIu64
                 " puts, %" PRIu64 " of them of deleted files (synthetic)\n",
            in, n.bios, n.adds, n.deletes, n.evictions, n.invalidations, n.gets,
            n.puts, n.synth_puts);
    fprintf(stderr,
            NAME ": %s: access stream: %" PRIu64 " reads, %" PRIu64
                 " writes, %" PRIu64 " mapped (pages; %" PRIu64 ", %" PRIu64
                 ", %" PRIu64 " events), %" PRIu64 " distinct pages; %" PRIu64
                 " reads wholly past the end dropped, %" PRIu64
                 " pages past the end clipped\n",
            in, n.reads, n.writes, n.mapped, n.read_events, n.write_events,
            n.mapped_events, n.distinct, n.past_eof, n.clipped_pages);
    fprintf(stderr,
            NAME ": %s: resident pages: min %" PRIu64 ", median %" PRIu64
                 ", max %" PRIu64 " (%" PRIu64 " samples)\n",
            in, min, med, max, n.samples);
    fprintf(stderr,
            NAME ": %s: kernel page cache: %" PRIu64 " of %" PRIu64
                 " accessed pages hit (%" PRIu64 " missed); %" PRIu64
                 " fault-around pages not cached, so not mapped (left out)\n",
            in, n.kernel_hits, n.kernel_hits + n.kernel_misses, n.kernel_misses,
            n.unmapped_fault_around);
    if (n.reordered)
        fprintf(stderr,
                NAME ": %s: %" PRIu64 " accesses older than the previous one "
                     "(another CPU's) given its time\n",
                in, n.reordered);
    if (pw || o.pack)
        fprintf(stderr,
                NAME ": %s: pack: %" PRIu64 " keys, %" PRIu64
                     " pages with synthetic contents (deleted files)\n",
                in, n.pack_keys, n.synth_keys);
}

int main(int argc, char **argv)
{
    FILE *in;
    cli_init(NAME, undo);

    parse_args(argc, argv);
    in = open_input(o.in);
    if (o.extents)
        load_extents();
    if (o.sizes)
        load_sizes(o.sizes, false);
    if (o.live)
        load_sizes(o.live, true);
    if (o.image && (image_fd = open(o.image, O_RDONLY)) < 0)
        die(2, "%s: %s", o.image, strerror(errno));
    writing = true;
    open_outputs();
    while (read_line(in, o.in, lineno + 1)) {
        lineno++;
        line(linebuf);
    }
    fclose(in);
    if (!n.ours) {
        if (o.dev_set)
            die(2, "%s: no event of device %" PRIu32 ":%" PRIu32, o.in,
                o.dev >> 20, o.dev & 0xfffff);
        die(2, "%s: no event of any device", o.in);
    }
    close_outputs();
    summary();
    zc_content_close(synth);
    if (image_fd >= 0)
        close(image_fd);
    free(ext);
    free(itab);
    free(keys);
    free(samples);
    free(rec);
    free(ctab);
    free(ttab);
    return 0;
}
