/*
 * zcache-tracefs - turn a tracefs recording of one file system on one
 * block device into the streams of a libzcache recording: the block
 * trace, the access stream, the kernel's own page-cache op stream, and
 * the content pack that gives all of them their page bytes.  The
 * conversion is the library's (zc_tracefs_convert(), src/sim/capture/);
 * this is its command line: the options, the summary, the exit status.
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
 * The device: --dev, or the one device the trace's events name, found by
 * reading the trace once through first (so a regular file); a trace with
 * events of several devices needs --dev, which ignores the others' events
 * (counted).  The summary's first line names the device and the events
 * ignored.
 *
 * Times: nanoseconds from the trace's first event line, in both streams
 * (at most 9 decimals).  The events of one CPU must not go back in time
 * (an error); across CPUs, whose clocks may be a hair apart, an event
 * older than the newest before it by at most 1 ms
 * (ZC_TRACEFS_REORDER_MAX_NS) takes the newest one's time (counted as
 * reordered), the first event as any other; by more, it is an error.
 *
 * Bad input also is: a line longer than 1 MiB or holding a NUL byte, a
 * last line without its newline (a cut trace), a folio past 2^64 bytes or
 * of order above 10 (x86-64's MAX_PAGE_ORDER), an access of more than
 * 2^20 pages, a bio of more than 4 GiB, an RWBS other than blkparse's
 * letters, and a trace in which no event is of the device.  Options are
 * checked against the limits of the readers of what they write:
 * --read-ahead-kb at most 4194304 (ZC_READ_AHEAD_KB_MAX).
 *
 * Lost events ("[LOST N EVENTS]", "EVENTS DROPPED") make the recording
 * incomplete: an error.  Bad input: "FILE:LINE: what", exit status 2;
 * failures to write, exit status 1.  Outputs are written whole or not at
 * all: each under a temporary name, all renamed into place once the last
 * is finished; a failure or a signal leaves every file of those names as
 * it was (standard output, a FIFO or a device gets what was written).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-tracefs"

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
            "  --dev MAJ:MIN        the device (default: the one the events "
            "name; a trace\n"
            "                       of several devices, or not a regular "
            "file, needs it)\n"
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
            "  --read-ahead-kb N    header field of the access stream (KiB, at "
            "most 4194304)\n"
            "  --level N            .zct compression: 0, 1 or 9 (default 9)\n"
            "  --inodes FILE        write 'ex <INO>' for every inode in the "
            "trace\n"
            "                       (debugfs commands for the extents)\n"
            "  --help, --version\n");
}

/* s[0..len) as a decimal number: digits only, no overflow. */
static bool decimal(const char *s, size_t len, uint64_t *v)
{
    uint64_t x = 0;

    if (!len || strspn(s, "0123456789") < len)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

static uint64_t number(const char *s, const char *what)
{
    uint64_t v;

    if (!decimal(s, strlen(s), &v))
        die(2, "%s: not a number: '%s'", what, s);
    return v;
}

/* "MAJ:MIN" into the kernel's dev_t (maj << 20 | min). */
static uint32_t device(const char *s)
{
    const char *colon = strchr(s, ':');
    uint64_t maj, min;

    if (!colon || !decimal(s, (size_t)(colon - s), &maj) ||
        !decimal(colon + 1, strlen(colon + 1), &min) || maj >= 4096 ||
        min >= (1u << 20))
        die(2, "--dev %s: want MAJ:MIN", s);
    return (uint32_t)(maj << 20 | min);
}

/* Whether a is an option that takes a number. */
static bool takes_number(const char *a)
{
    static const char *const numbers[] = {"--dev", "--bdevfs", "--memory-limit",
                                          "--read-ahead-kb", "--level"};

    for (size_t j = 0; j < sizeof(numbers) / sizeof(numbers[0]); j++)
        if (!strcmp(a, numbers[j]))
            return true;
    return false;
}

static void parse_args(int argc, char **argv, zc_tracefs_options *o)
{
    struct {
        const char *name;
        const char **dst;
    } paths[] = {{"--blkparse", &o->blkparse}, {"--kernel-ops", &o->kernel_ops},
                 {"--access", &o->access},     {"--pack", &o->pack},
                 {"--image", &o->image},       {"--inodes", &o->inodes},
                 {"--extents", &o->extents},   {"--sizes", &o->sizes},
                 {"--live", &o->live}};
    const size_t npaths = sizeof(paths) / sizeof(paths[0]);

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
            if (o->input)
                die(2, "one trace at a time ('%s' and '%s')", o->input, a);
            o->input = a;
            continue;
        }
        for (k = 0; k < npaths && strcmp(a, paths[k].name); k++)
            ;
        if (!v) {
            if (k < npaths || takes_number(a))
                die(2, "option %s needs a value", a);
            die(2, "unknown option '%s'", a);
        }
        i++;
        if (k < npaths) {
            *paths[k].dst = v;
        } else if (!strcmp(a, "--dev")) {
            o->dev = device(v);
            o->dev_set = true;
        } else if (!strcmp(a, "--bdevfs")) {
            uint64_t n = number(v, "--bdevfs");
            if (n > UINT32_MAX)
                die(2, "--bdevfs %s: want an s_dev below 2^32", v);
            o->bdevfs = (uint32_t)n;
        } else if (!strcmp(a, "--memory-limit")) {
            o->memory_limit = number(v, "--memory-limit");
            o->memory_limit_set = true;
        } else if (!strcmp(a, "--read-ahead-kb")) {
            o->read_ahead_kb = number(v, "--read-ahead-kb");
            o->read_ahead_set = true;
        } else if (!strcmp(a, "--level")) {
            uint64_t n = number(v, "--level");
            if (n != 0 && n != 1 && n != 9)
                die(2, "--level %s: want 0, 1 or 9", v);
            o->level = (int)n;
        } else {
            die(2, "unknown option '%s'", a);
        }
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void summary(const zc_tracefs_options *o, const zc_tracefs_summary *n)
{
    const char *in = base_name(o->input);

    fprintf(stderr,
            NAME ": %s: device %" PRIu32 ":%" PRIu32 " (%s); %" PRIu64
                 " events of other devices ignored\n",
            in, n->dev >> 20, n->dev & 0xfffff,
            n->dev_found ? "the one the events name" : "--dev",
            n->other_devices);
    fprintf(stderr,
            NAME ": %s: %" PRIu64 " bios, %" PRIu64 " adds, %" PRIu64
                 " deletes (%" PRIu64 " evictions, %" PRIu64
                 " truncations); kernel stream: %" PRIu64 " gets, %" PRIu64
                 " puts, %" PRIu64 " of them of deleted files (synthetic)\n",
            in, n->bios, n->adds, n->deletes, n->evictions, n->invalidations,
            n->gets, n->puts, n->synthetic_puts);
    fprintf(stderr,
            NAME ": %s: access stream: %" PRIu64 " reads, %" PRIu64
                 " writes, %" PRIu64 " mapped (pages; %" PRIu64 ", %" PRIu64
                 ", %" PRIu64 " events), %" PRIu64 " distinct pages; %" PRIu64
                 " reads wholly past the end dropped, %" PRIu64
                 " pages past the end clipped\n",
            in, n->reads, n->writes, n->mapped, n->read_events, n->write_events,
            n->mapped_events, n->distinct, n->past_eof, n->clipped_pages);
    fprintf(stderr,
            NAME ": %s: resident pages: min %" PRIu64 ", median %" PRIu64
                 ", max %" PRIu64 " (%" PRIu64 " samples)\n",
            in, n->resident_min, n->resident_median, n->resident_max,
            n->samples);
    fprintf(stderr,
            NAME ": %s: kernel page cache: %" PRIu64 " of %" PRIu64
                 " accessed pages hit (%" PRIu64 " missed); %" PRIu64
                 " fault-around pages not cached, so not mapped (left out)\n",
            in, n->kernel_hits, n->kernel_hits + n->kernel_misses,
            n->kernel_misses, n->unmapped_fault_around);
    if (n->reordered)
        fprintf(stderr,
                NAME ": %s: %" PRIu64 " events older than the newest before "
                     "them (another CPU's, by at most %u us) given its time\n",
                in, n->reordered, ZC_TRACEFS_REORDER_MAX_NS / 1000u);
    if (o->pack)
        fprintf(stderr,
                NAME ": %s: pack: %" PRIu64 " keys, %" PRIu64
                     " pages with synthetic contents (deleted files)\n",
                in, n->pack_keys, n->synthetic_keys);
}

int main(int argc, char **argv)
{
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary n;
    size_t errlen = 4096; /* messages name paths: room for the longest */
    char *err;
    int rc;

    cli_init(NAME, NULL);
    parse_args(argc, argv, &o);
    for (int i = 1; i < argc; i++)
        errlen += strlen(argv[i]);
    if (!(err = malloc(errlen)))
        die(1, "out of memory");
    rc = zc_tracefs_convert(&o, &n, err, errlen);
    if (rc)
        die(n.bad_input ? 2 : 1, "%s", err);
    free(err);
    summary(&o, &n);
    return 0;
}
