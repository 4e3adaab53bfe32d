/*
 * zcache-tracefs - turn a tracefs recording of one block device into a
 * block trace and the kernel's own page-cache op stream.
 *
 *   zcache-tracefs [OPTIONS] TRACE
 *
 * TRACE is the text of a tracefs instance's trace_pipe, with the events
 *
 *   block:block_bio_queue                   the Q event of blktrace
 *   filemap:mm_filemap_add_to_page_cache    a page entered the page cache
 *   filemap:mm_filemap_delete_from_page_cache  a page left it
 *   vmscan:mm_vmscan_*_reclaim_begin/_end   reclaim windows, per task
 *
 * as tools/zcache-record writes it.  Outputs:
 *
 *   --blkparse FILE   the Q events in blkparse's default text format
 *                     (times relative to the first event, sequence numbers
 *                     per CPU), after comment lines saying that it was
 *                     made from tracefs events, not by blktrace
 *   --kernel-ops FILE the kernel's page-cache stream as an op stream: a
 *                     page added is a cleancache get (a miss brought it
 *                     in), a page deleted inside a reclaim window of its
 *                     task (or by kswapd or kdamond) is an eviction, so a
 *                     put with its bytes, and any other delete (truncate,
 *                     unlink) invalidates the page.  Pool 0 is the file
 *                     system (key: inode number), pool 1 the block
 *                     device's own page cache, where ext4 keeps metadata
 *                     (key: the device number, index: page of the device).
 *
 * Page bytes come from the device image (--image) after the run: metadata
 * pages at their own offset, file pages through the extents of their
 * inode (--extents: lines "INO LBLK PBLK LEN [u]", u for unwritten
 * extents, which read as zeros).  So the contents are exact for pages the
 * workload did not change after reading them; pages of files deleted
 * during the run cannot be found, and their puts are left out (counted).
 *
 * Lost events ("[LOST N EVENTS]") make the recording incomplete: an
 * error.  Bad input: a message naming the file and line, exit status 2.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zcache.h"
#include "zcache_trace.h"

#define NAME "zcache-tracefs"
#define PAGE 4096u
#define MAX_CPUS 1024

struct extent {
    uint64_t ino, lblk, pblk, len;
    bool unwritten;
};

struct reclaim {
    uint32_t pid;
    int depth;
};

static struct {
    const char *in, *blkparse, *kops, *image, *extents, *inodes;
    uint32_t dev; /* the kernel's dev_t of the device: maj << 20 | min */
    bool dev_set;
    uint32_t bdevfs; /* s_dev of the block-device pseudo file system */
    int level;
} o = {.bdevfs = 3, .level = 9};

static struct {
    uint64_t lines, bios, adds, deletes, evictions, invalidations;
    uint64_t gets, puts, unmapped, markers, other;
} n;

static FILE *bp;
static zc_ops_writer *ops;
static int image_fd = -1;
static struct extent *ext;
static size_t next_;
static uint64_t *inos;
static size_t ninos, inos_cap;
static struct reclaim *rec;
static size_t nrec;
static uint64_t seq[MAX_CPUS];
static uint64_t t0_ns;
static bool have_t0, pool_init[2];
static uint64_t lineno;
static unsigned char page[PAGE];

/* Outputs being written: removed on failure, so that nothing partial
 * looks complete. */
static void remove_outputs(void)
{
    if (o.blkparse)
        remove(o.blkparse);
    if (o.kops)
        remove(o.kops);
    if (o.inodes)
        remove(o.inodes);
}

static bool writing;

static void die(int status, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, NAME ": ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    if (writing)
        remove_outputs();
    exit(status);
}

static void bad(const char *what)
{
    fprintf(stderr, NAME ": %s:%" PRIu64 ": %s\n", o.in, lineno, what);
    if (writing)
        remove_outputs();
    exit(2);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: " NAME " [OPTIONS] TRACE\n"
               "\n"
               "Convert a tracefs recording (block_bio_queue, mm_filemap_*, "
               "vmscan reclaim\n"
               "events of one device) into a blkparse text trace and the "
               "kernel's op stream.\n"
               "\n"
               "  --dev MAJ:MIN       the device (default: that of the first "
               "bio event)\n"
               "  --bdevfs N          s_dev of the block-device pseudo fs "
               "(default 3)\n"
               "  --blkparse FILE     write the Q events as blkparse text\n"
               "  --kernel-ops FILE   write the kernel's page-cache stream "
               "(.zct, or text if\n"
               "                      FILE ends in .txt)\n"
               "  --image IMG         the device image (page contents)\n"
               "  --extents FILE      'INO LBLK PBLK LEN [u]' lines for the "
               "files' pages\n"
               "  --level N           .zct compression: 0, 1 or 9 (default 9)\n"
               "  --inodes FILE       write 'ex <INO>' for every file inode in "
               "the trace\n"
               "                      (debugfs commands for the extents)\n"
               "  --help\n");
}

static uint64_t number(const char *s, const char *what)
{
    char *end;
    uint64_t v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        die(2, "%s: not a number: '%s'", what, s);
    return v;
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (strncmp(a, "--", 2)) {
            if (o.in)
                die(2, "one trace at a time ('%s' and '%s')", o.in, a);
            o.in = a;
            continue;
        }
        if (!v)
            die(2, "option %s needs a value%s", a, "");
        i++;
        if (!strcmp(a, "--dev")) {
            unsigned maj, min;
            char c;
            if (sscanf(v, "%u:%u%c", &maj, &min, &c) != 2 || maj >= 4096 ||
                min >= (1u << 20))
                die(2, "--dev %s: want MAJ:MIN%s", v, "");
            o.dev = maj << 20 | min;
            o.dev_set = true;
        } else if (!strcmp(a, "--bdevfs")) {
            o.bdevfs = (uint32_t)number(v, "--bdevfs");
        } else if (!strcmp(a, "--blkparse")) {
            o.blkparse = v;
        } else if (!strcmp(a, "--kernel-ops")) {
            o.kops = v;
        } else if (!strcmp(a, "--image")) {
            o.image = v;
        } else if (!strcmp(a, "--inodes")) {
            o.inodes = v;
        } else if (!strcmp(a, "--extents")) {
            o.extents = v;
        } else if (!strcmp(a, "--level")) {
            o.level = (int)number(v, "--level");
            if (o.level != 0 && o.level != 1 && o.level != 9)
                die(2, "--level %s: want 0, 1 or 9%s", v, "");
        } else {
            die(2, "unknown option '%s'%s", a, "");
        }
    }
    if (!o.in)
        die(2, "no trace given%s%s", "", "");
    if (o.kops && (!o.image || !o.dev_set))
        die(2, "--kernel-ops needs --image (the page contents) and --dev%s%s",
            "", "");
}

/* ---- extents ------------------------------------------------------------ */

static int ext_cmp(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;

    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

static void load_extents(void)
{
    FILE *f = fopen(o.extents, "r");
    char line[256];
    size_t cap = 0;
    uint64_t ln = 0;

    if (!f)
        die(2, "%s: %s", o.extents, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        struct extent e = {0};
        char flag[8] = "";
        int k;
        ln++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        k = sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %7s",
                   &e.ino, &e.lblk, &e.pblk, &e.len, flag);
        if (k < 4 || e.len == 0 || (k == 5 && strcmp(flag, "u"))) {
            fprintf(stderr,
                    NAME ": %s:%" PRIu64 ": want 'INO LBLK PBLK LEN [u]'\n",
                    o.extents, ln);
            exit(2);
        }
        e.unwritten = k == 5;
        if (next_ == cap) {
            cap = cap ? cap * 2 : 1024;
            ext = realloc(ext, cap * sizeof(*ext));
            if (!ext)
                die(1, "out of memory%s%s", "", "");
        }
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

/* ---- outputs ------------------------------------------------------------ */

static void read_image(uint64_t off)
{
    ssize_t got = pread(image_fd, page, PAGE, (off_t)off);

    if (got < 0)
        die(1, "%s: %s", o.image, strerror(errno));
    if (got < (ssize_t)PAGE) /* past the end: zeros, as a device reads */
        memset(page + got, 0, PAGE - (size_t)got);
}

static void emit(zc_op *op)
{
    if (!ops)
        return;
    if (!pool_init[op->pool]) {
        zc_op init = {
            .kind = ZC_OP_INIT_FS, .pool = op->pool, .page_size = PAGE};
        if (zc_ops_write(ops, &init))
            die(1, "%s%s", zc_ops_writer_error(ops), "");
        pool_init[op->pool] = true;
    }
    if (zc_ops_write(ops, op))
        die(1, "%s%s", zc_ops_writer_error(ops), "");
}

static int *reclaim_depth(uint32_t pid)
{
    for (size_t i = 0; i < nrec; i++)
        if (rec[i].pid == pid)
            return &rec[i].depth;
    rec = realloc(rec, (nrec + 1) * sizeof(*rec));
    if (!rec)
        die(1, "out of memory%s%s", "", "");
    rec[nrec].pid = pid;
    rec[nrec].depth = 0;
    return &rec[nrec++].depth;
}

/* "dev MAJ:MIN ino HEX pfn=0x.. ofs=BYTES order=K" */
static void filemap(bool add, const char *d, const char *comm, uint32_t pid)
{
    unsigned maj, min, order;
    uint64_t ino, ofs, pfn;
    uint32_t sdev;
    zc_op op = {0};
    bool meta, evict;

    if (sscanf(d,
               "dev %u:%u ino %" SCNx64 " pfn=0x%" SCNx64 " ofs=%" SCNu64
               " order=%u",
               &maj, &min, &ino, &pfn, &ofs, &order) != 6 ||
        order > 20 || ofs % PAGE)
        bad("a filemap event that does not parse");
    sdev = maj << 20 | min;
    meta = sdev == o.bdevfs && o.dev_set && ino == o.dev;
    if (!o.dev_set || (sdev != o.dev && !meta)) {
        n.other++;
        return;
    }
    if (add)
        n.adds++;
    else
        n.deletes++;
    evict = !add && (*reclaim_depth(pid) > 0 || !strncmp(comm, "kswapd", 6) ||
                     !strncmp(comm, "kdamond", 7));
    if (!add) {
        if (evict)
            n.evictions++;
        else
            n.invalidations++;
    }
    if (!meta && o.inodes) {
        if (ninos == inos_cap) {
            inos_cap = inos_cap ? inos_cap * 2 : 1024;
            inos = realloc(inos, inos_cap * sizeof(*inos));
            if (!inos)
                die(1, "out of memory%s%s", "", "");
        }
        inos[ninos++] = ino;
    }
    op.pool = meta ? 1 : 0;
    op.key = zc_filekey_from_ino(ino);
    for (uint64_t k = 0; k < (1ull << order); k++) {
        op.index = ofs / PAGE + k;
        if (add) {
            op.kind = ZC_OP_GET;
            n.gets++;
        } else if (!evict) {
            op.kind = ZC_OP_INVALIDATE_PAGE;
        } else {
            const struct extent *e;
            op.kind = ZC_OP_PUT;
            op.page = page;
            if (!ops) {
                n.puts++;
                continue;
            }
            if (meta) {
                read_image(op.index * PAGE);
            } else if ((e = find_extent(ino, op.index)) != NULL) {
                if (e->unwritten)
                    memset(page, 0, PAGE);
                else
                    read_image((e->pblk + op.index - e->lblk) * PAGE);
            } else {
                n.unmapped++;
                continue;
            }
            n.puts++;
        }
        emit(&op);
    }
}

/* "MAJ,MIN RWBS SECTOR + COUNT [COMM]" */
static void bio(const char *d, unsigned cpu, uint32_t pid, uint64_t t_ns)
{
    unsigned maj, min, count;
    uint64_t sector, rel;
    char rwbs[16];
    const char *comm;

    if (sscanf(d, "%u,%u %15s %" SCNu64 " + %u", &maj, &min, rwbs, &sector,
               &count) != 5)
        bad("a block_bio_queue event that does not parse");
    if (!o.dev_set) {
        o.dev = maj << 20 | min;
        o.dev_set = true;
    }
    if ((maj << 20 | min) != o.dev) {
        n.other++;
        return;
    }
    n.bios++;
    if (!bp)
        return;
    comm = strchr(d, '[');
    if (!have_t0) {
        t0_ns = t_ns;
        have_t0 = true;
    }
    if (t_ns < t0_ns)
        bad("an event older than the first one (clocks of the CPUs "
            "disagree: record with trace_clock mono)");
    rel = t_ns - t0_ns;
    fprintf(bp,
            "%3u,%-3u %2u %8" PRIu64 " %5" PRIu64 ".%09" PRIu64
            " %5u  Q %3s %" PRIu64 " + %u %s\n",
            maj, min, cpu, ++seq[cpu % MAX_CPUS], rel / 1000000000,
            rel % 1000000000, pid, rwbs, sector, count, comm ? comm : "[?]");
}

/* "   TASK-PID   [CPU] FLAGS SECONDS.MICROS: EVENT: DETAILS" */
static void line(char *s)
{
    char *p, *q, *cpu_open, comm[64];
    unsigned cpu;
    uint32_t pid;
    uint64_t sec, frac = 0, t_ns;
    int digits = 0;

    s[strcspn(s, "\n")] = '\0';
    p = s + strspn(s, " \t");
    if (*p == '#' || *p == '\0')
        return;
    if (strstr(p, "[LOST ") && strstr(p, " EVENTS]"))
        bad("the recording lost events (its buffer overflowed): it is "
            "incomplete");
    /* The CPU field: the first " [digits]" */
    for (cpu_open = strstr(p, " ["); cpu_open;
         cpu_open = strstr(cpu_open + 1, " ["))
        if (cpu_open[2] >= '0' && cpu_open[2] <= '9' && strchr(cpu_open, ']') &&
            strspn(cpu_open + 2, "0123456789") ==
                (size_t)(strchr(cpu_open, ']') - cpu_open - 2))
            break;
    if (!cpu_open)
        bad("not a tracefs event line");
    *cpu_open = '\0';
    q = strrchr(p, '-');
    if (!q)
        bad("no TASK-PID before the CPU");
    *q = '\0';
    pid = (uint32_t)strtoul(q + 1, NULL, 10);
    snprintf(comm, sizeof(comm), "%s", p);
    cpu = (unsigned)strtoul(cpu_open + 2, &p, 10);
    p++; /* ']' */
    /* Optional flags, then the timestamp "S.U:" */
    p += strspn(p, " ");
    q = strchr(p, ' ');
    if (q && q[-1] != ':') {
        p = q + strspn(q, " ");
    }
    sec = strtoull(p, &q, 10);
    if (*q != '.')
        bad("no timestamp");
    for (q++; *q >= '0' && *q <= '9'; q++, digits++)
        if (digits < 9)
            frac = frac * 10 + (uint64_t)(*q - '0');
    if (*q != ':' || !digits)
        bad("no timestamp");
    for (; digits < 9; digits++)
        frac *= 10;
    t_ns = sec * 1000000000u + frac;
    p = q + 1 + strspn(q + 1, " ");
    q = strstr(p, ": ");
    if (!q)
        bad("no event name");
    *q = '\0';
    q += 2;
    n.lines++;
    if (!strcmp(p, "block_bio_queue")) {
        bio(q, cpu, pid, t_ns);
    } else if (!strcmp(p, "mm_filemap_add_to_page_cache")) {
        filemap(true, q, comm, pid);
    } else if (!strcmp(p, "mm_filemap_delete_from_page_cache")) {
        filemap(false, q, comm, pid);
    } else if (strstr(p, "_reclaim_begin")) {
        ++*reclaim_depth(pid);
    } else if (strstr(p, "_reclaim_end")) {
        int *d = reclaim_depth(pid);
        if (*d > 0)
            --*d;
    } else if (!strcmp(p, "tracing_mark_write")) {
        n.markers++;
    } else {
        n.other++;
    }
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void write_inodes(void)
{
    FILE *f = fopen(o.inodes, "w");

    if (!f)
        die(1, "%s: %s", o.inodes, strerror(errno));
    qsort(inos, ninos, sizeof(*inos), u64_cmp);
    for (size_t i = 0; i < ninos; i++)
        if (i == 0 || inos[i] != inos[i - 1])
            fprintf(f, "ex <%" PRIu64 ">\n", inos[i]);
    if (fclose(f))
        die(1, "%s: write error%s", o.inodes, "");
}

int main(int argc, char **argv)
{
    FILE *in;
    char *buf = NULL;
    size_t cap = 0;
    char err[512];

    parse_args(argc, argv);
    in = fopen(o.in, "r");
    if (!in)
        die(2, "%s: %s", o.in, strerror(errno));
    if (o.extents)
        load_extents();
    if (o.image && (image_fd = open(o.image, O_RDONLY)) < 0)
        die(2, "%s: %s", o.image, strerror(errno));
    writing = true;
    if (o.blkparse) {
        bp = fopen(o.blkparse, "w");
        if (!bp)
            die(1, "%s: %s", o.blkparse, strerror(errno));
        fprintf(bp,
                "# blkparse default text format, made by " NAME
                " from tracefs events\n"
                "# (block:block_bio_queue, the Q event) of %s; not "
                "blktrace output.\n"
                "# Times are relative to the first event; sequence numbers "
                "count per CPU.\n",
                o.in);
    }
    if (o.kops) {
        zc_ops_writer_options wo = {.page_size = PAGE,
                                    .level = o.level ? o.level : -1,
                                    .window = 65536};
        size_t len = strlen(o.kops);
        char meta[1024];
        snprintf(meta, sizeof(meta),
                 "format=tracefs-filemap\nsource=%s\nimage=%s\n"
                 "pools=0 the file system (key inode), 1 the block device's "
                 "metadata pages\n",
                 o.in, o.image);
        wo.text = len > 4 && !strcmp(o.kops + len - 4, ".txt");
        wo.meta = meta;
        if (zc_ops_writer_open(o.kops, &wo, &ops, err, sizeof(err)))
            die(1, "%s%s", err, "");
    }
    while (getline(&buf, &cap, in) > 0) {
        lineno++;
        line(buf);
    }
    if (ferror(in))
        die(1, "%s: read error%s", o.in, "");
    fclose(in);
    free(buf);
    if (bp && fclose(bp))
        die(1, "%s: write error%s", o.blkparse, "");
    if (ops && zc_ops_writer_close(ops, err, sizeof(err)))
        die(1, "%s%s", err, "");
    if (o.inodes)
        write_inodes();
    fprintf(stderr,
            NAME ": %s: %" PRIu64 " bios, %" PRIu64 " adds, %" PRIu64
                 " deletes (%" PRIu64 " evictions, %" PRIu64
                 " truncations); kernel stream: %" PRIu64 " gets, %" PRIu64
                 " puts, %" PRIu64 " pages of deleted files left out\n",
            o.in, n.bios, n.adds, n.deletes, n.evictions, n.invalidations,
            n.gets, n.puts, n.unmapped);
    return 0;
}
