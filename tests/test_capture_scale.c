/*
 * test_capture_scale.c - the tracefs conversion (zc_tracefs_convert()) at
 * scale: its work grows with the events, never with their square, and
 * its tables with the pages the kernel holds and the runs of pages the
 * outputs must name, not with every page the run ever touched; the idle
 * task (pid 0) is a task like any other; keys kept as runs are counted
 * and mapped exactly, in whatever order they come.  (Issue 33, items 10
 * and 13.)
 *
 * Work and room are read from the conversion's own counters
 * (zc__cap_cost, capture/capture.h: lookups and the slots they probed,
 * task records, the most slots of each table), never from the clock or
 * the RSS, so the bounds are exact and the tests do not depend on the
 * machine.  It links the library's objects to read them.
 *
 * The captures are made here, in trace_pipe's layout, with what each
 * must give known by construction.  The quick tier runs them on fewer
 * events (zt_scale()); the bounds do not depend on the size, so a table
 * that grows with the events or the distinct pages still fails.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/capture.h"
#include "zcache_sim.h"
#include "zt_util.h"

#define PS 4096u
#define DEV (7u << 20) /* 7:0 */

/* ---- scratch files ------------------------------------------------------ */

static char dir[4096];

static int dir_setup(void **state)
{
    const char *t = getenv("TMPDIR");

    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_capture_scale_XXXXXX",
             t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make a scratch directory %s (set TMPDIR)\n",
                dir);
        return -1;
    }
    return 0;
}

static const char *const scratch_names[] = {
    "idle.trace", "busy.trace", "tasks.trace",  "stream.trace", "image",
    "live",       "stream.zcp", "random.trace", "random.zcp", "flutter.trace"};

static const char *path_of(const char *name)
{
    static char paths[sizeof(scratch_names) / sizeof(scratch_names[0])][4200];

    for (size_t i = 0; i < sizeof(scratch_names) / sizeof(scratch_names[0]);
         i++)
        if (!strcmp(name, scratch_names[i])) {
            snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, name);
            return paths[i];
        }
    fail_msg("%s: not a scratch name", name);
    return NULL;
}

static int dir_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scratch_names) / sizeof(scratch_names[0]);
         i++)
        unlink(path_of(scratch_names[i]));
    return rmdir(dir);
}

/* ---- captures ------------------------------------------------------------ */

/* A capture being written: trace_pipe lines on CPU 0, one microsecond
 * apart. */
struct cap {
    FILE *f;
    uint64_t us;
};

static void cap_open(struct cap *c, const char *name)
{
    c->f = fopen(path_of(name), "w");
    c->us = 0;
    assert_non_null(c->f);
}

static void ev(struct cap *c, const char *task, uint32_t pid, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));

static void ev(struct cap *c, const char *task, uint32_t pid, const char *fmt,
               ...)
{
    va_list ap;

    fprintf(c->f, "%16s-%-7u [000] ..... %" PRIu64 ".%06" PRIu64 ": ", task,
            pid, 1000 + c->us / 1000000, c->us % 1000000);
    va_start(ap, fmt);
    vfprintf(c->f, fmt, ap);
    va_end(ap);
    fputc('\n', c->f);
    c->us++;
}

static void add(struct cap *c, const char *task, uint32_t pid, uint64_t ino,
                uint64_t page)
{
    ev(c, task, pid,
       "mm_filemap_add_to_page_cache: dev 7:0 ino %" PRIx64
       " pfn=0x1 ofs=%" PRIu64 " order=0",
       ino, page * PS);
}

static void del(struct cap *c, const char *task, uint32_t pid, uint64_t ino,
                uint64_t page)
{
    ev(c, task, pid,
       "mm_filemap_delete_from_page_cache: dev 7:0 ino %" PRIx64
       " pfn=0x1 ofs=%" PRIu64 " order=0",
       ino, page * PS);
}

static void rd(struct cap *c, const char *task, uint32_t pid, uint64_t ino,
               uint64_t first, uint64_t last)
{
    ev(c, task, pid,
       "mm_filemap_get_pages: dev=7:0 ino=%" PRIx64 " ofs=%" PRIu64 "-%" PRIu64,
       ino, first * PS, (last + 1) * PS - 1);
}

static void cap_close(struct cap *c)
{
    assert_int_equal(fclose(c->f), 0);
}

/* Convert o (its input, device 7:0): asserts success; the counters of
 * this conversion alone in zc__cap_cost. */
static zc_tracefs_summary convert(zc_tracefs_options *o)
{
    zc_tracefs_summary s;
    char err[512];
    int rc;

    o->dev = DEV;
    o->dev_set = true;
    memset(&zc__cap_cost, 0, sizeof(zc__cap_cost));
    rc = zc_tracefs_convert(o, &s, err, sizeof(err));
    if (rc)
        fail_msg("%s: %s", o->input, err);
    return s;
}

/* ---- item 10: pid 0 is a task like any other ----------------------------
 */

/* One task adds page 0, reads it (a miss: it added it since its last
 * access), reads it again (a hit), adds page 1 and reads both (page 0 a
 * hit, page 1 a miss): 2 hits, 2 misses, whatever its pid. */
static zc_tracefs_summary reread(const char *name, const char *task,
                                 uint32_t pid)
{
    zc_tracefs_options o = zc_tracefs_options_default();
    struct cap c;

    cap_open(&c, name);
    add(&c, task, pid, 0xd, 0);
    rd(&c, task, pid, 0xd, 0, 0);
    rd(&c, task, pid, 0xd, 0, 0);
    add(&c, task, pid, 0xd, 1);
    rd(&c, task, pid, 0xd, 0, 1);
    cap_close(&c);
    o.input = path_of(name);
    return convert(&o);
}

static void test_idle_task_hits_and_misses_like_any_task(void **state)
{
    zc_tracefs_summary idle = reread("idle.trace", "<idle>", 0);
    zc_tracefs_summary busy = reread("busy.trace", "cat", 1234);

    (void)state;
    assert_int_equal(busy.kernel_hits, 2);
    assert_int_equal(busy.kernel_misses, 2);
    assert_int_equal(idle.kernel_hits, 2);
    assert_int_equal(idle.kernel_misses, 2);
    assert_int_equal(zc__cap_cost.tasks, 1); /* one record for pid 0 */
}

/* ---- item 10: many tasks, linear work ------------------------------------
 */

/* Rounds of a capture where tasks come and go as in a build: round r,
 * task pid 1 + r % tasks (every tenth round the idle task, pid 0)
 * adds a page of its own file, reads it, reads it again, and a task that
 * does nothing else (pid tasks + 1 + r: a new one each round) deletes it.
 * Four events a round; each read pair is a miss and a hit. */
static void test_many_tasks_convert_in_linear_work(void **state)
{
    const uint64_t events = zt_scale(1000000, 200000), rounds = events / 4;
    const uint64_t tasks = events / 10; /* 10^5 tasks at full scale */
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    uint64_t readers = 0;
    struct cap c;

    (void)state;
    cap_open(&c, "tasks.trace");
    for (uint64_t r = 0; r < rounds; r++) {
        uint32_t pid = r % 10 == 0 ? 0 : (uint32_t)(1 + r % tasks);
        const char *task = pid ? "cc1" : "<idle>";
        uint64_t ino = 0x100 + r % 64, page = r;
        add(&c, task, pid, ino, page);
        rd(&c, task, pid, ino, page, page);
        rd(&c, task, pid, ino, page, page);
        del(&c, "rm", (uint32_t)(tasks + 1 + r), ino, page);
    }
    cap_close(&c);
    /* the tasks that read besides pid 0: pids 1 + r % tasks for r % 10
     * != 0, which (tasks a multiple of 10) are those of (pid - 1) % 10 !=
     * 0 */
    for (uint64_t p = 1; p <= tasks && p <= rounds; p++)
        readers += (p - 1) % 10 != 0;
    o.input = path_of("tasks.trace");
    s = convert(&o);

    assert_int_equal(s.lines, rounds * 4);
    assert_int_equal(s.kernel_misses, rounds);
    assert_int_equal(s.kernel_hits, rounds);
    assert_int_equal(s.invalidations, rounds);
    /* A task record for each task that reads (pid 0 once), none for a
     * task that only deletes outside reclaim. */
    assert_int_equal(zc__cap_cost.tasks, readers + 1);
    /* The held pages' table: a few lookups an event, a few probes a
     * lookup (it is at most half full), and as many slots as pages held
     * (one at a time here), not as pages ever held. */
    assert_true(zc__cap_cost.page_lookups <= 4 * s.lines);
    assert_true(zc__cap_cost.page_probes <= 4 * zc__cap_cost.page_lookups);
    assert_true(zc__cap_cost.page_slots <= 1024);
}

/* ---- item 13: memory follows the resident pages ---------------------------
 */

/* A streaming read of `pages` distinct pages (files of 4096 pages, read a
 * page at a time) through a page cache of 512 pages: cat adds a page and
 * reads it, kswapd evicts the page read 512 pages before. */
static void write_stream(uint64_t pages)
{
    struct cap c;

    cap_open(&c, "stream.trace");
    for (uint64_t i = 0; i < pages; i++) {
        add(&c, "cat", 100, 0x10 + i / 4096, i % 4096);
        rd(&c, "cat", 100, 0x10 + i / 4096, i % 4096, i % 4096);
        if (i >= 512)
            del(&c, "kswapd0", 50, 0x10 + (i - 512) / 4096, (i - 512) % 4096);
    }
    cap_close(&c);
}

static void test_streamed_pages_keep_bounded_tables(void **state)
{
    const uint64_t pages = zt_scale(1000000, 200000);
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    FILE *f;

    (void)state;
    write_stream(pages);
    o.input = path_of("stream.trace");
    s = convert(&o);
    assert_int_equal(s.distinct, pages);
    assert_int_equal(s.kernel_misses, pages);
    assert_int_equal(s.evictions, pages - 512);
    /* the keys of the accessed pages (for the distinct count): runs, not
     * pages; the held pages: what the kernel holds */
    assert_true(zc__cap_cost.key_slots <= 16384);
    assert_true(zc__cap_cost.page_slots <= 2048);

    /* With a pack, which must map every key: the conversion's own keys
     * stay as few (the pack writer's map is the output's). */
    f = fopen(path_of("live"), "w");
    assert_non_null(f);
    for (uint64_t ino = 0x10; ino <= 0x10 + pages / 4096; ino++)
        fprintf(f, "%" PRIu64 " %u\n", ino, 4096 * PS);
    assert_int_equal(fclose(f), 0);
    f = fopen(path_of("image"), "w");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    o.live = path_of("live");
    o.image = path_of("image");
    o.pack = path_of("stream.zcp");
    s = convert(&o);
    assert_int_equal(s.distinct, pages);
    assert_int_equal(s.pack_keys, pages);
    assert_int_equal(s.synthetic_keys, 0);
    assert_true(zc__cap_cost.key_slots <= 16384);
}

/* Keys in no order: reads of 1-4 pages, adds and deletes of single pages,
 * at random over three files, many more runs than the first array holds
 * (so they are merged while the capture is read).  The access stream's
 * distinct pages and the pack's keys are the sets the test kept. */
/* A resident count that changes before every read (kswapd evicts two
 * pages every other read: 513, 514, 513, ...): the samples kept for the
 * median are folded by count, so their memory follows the distinct
 * counts, not the trace; the median over the requests is one of the two. */
static void test_resident_samples_keep_bounded_memory(void **state)
{
    const uint64_t pages = zt_scale(1000000, 300000);
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    struct cap c;

    (void)state;
    cap_open(&c, "flutter.trace");
    for (uint64_t i = 0; i < pages; i++) {
        add(&c, "cat", 100, 0x10 + i / 4096, i % 4096);
        rd(&c, "cat", 100, 0x10 + i / 4096, i % 4096, i % 4096);
        if (i >= 513 && i % 2) {
            del(&c, "kswapd0", 50, 0x10 + (i - 513) / 4096, (i - 513) % 4096);
            del(&c, "kswapd0", 50, 0x10 + (i - 512) / 4096, (i - 512) % 4096);
        }
    }
    cap_close(&c);
    o.input = path_of("flutter.trace");
    s = convert(&o);
    assert_true(s.samples >= pages - 600);
    assert_true(zc__cap_cost.sample_slots <= 2 * 65536 + 1);
    assert_true(s.resident_median == 513 || s.resident_median == 514);
    assert_int_equal(s.resident_max, 514);
}

static void test_keys_in_any_order_are_counted_and_mapped_once(void **state)
{
    enum { FILES = 3, PAGES = 8192, EVENTS = 30000 };
    static bool accessed[FILES][PAGES], named[FILES][PAGES];
    zc_tracefs_options o = zc_tracefs_options_default();
    uint64_t rng = 0x9e3779b97f4a7c15ull, distinct = 0, keys = 0;
    zc_tracefs_summary s;
    zc_pack *pack;
    char err[512];
    struct cap c;
    FILE *f;

    (void)state;
    memset(accessed, 0, sizeof(accessed));
    memset(named, 0, sizeof(named));
    cap_open(&c, "random.trace");
    for (int e = 0; e < EVENTS; e++) {
        uint64_t x = zt_mix64(rng++);
        unsigned file = (unsigned)(x % FILES);
        uint64_t page = (x >> 8) % PAGES, n = 1 + (x >> 40) % 4;
        switch ((x >> 32) % 3) {
        case 0:
            if (page + n > PAGES)
                page = PAGES - n;
            rd(&c, "cat", 7, 0x20 + file, page, page + n - 1);
            for (uint64_t k = 0; k < n; k++)
                accessed[file][page + k] = true;
            break;
        case 1:
            add(&c, "cat", 7, 0x20 + file, page);
            named[file][page] = true;
            break;
        default:
            del(&c, "rm", 8, 0x20 + file, page);
            named[file][page] = true;
            break;
        }
    }
    cap_close(&c);
    for (unsigned fi = 0; fi < FILES; fi++)
        for (uint64_t p = 0; p < PAGES; p++) {
            distinct += accessed[fi][p];
            keys += accessed[fi][p] || named[fi][p];
        }
    f = fopen(path_of("live"), "w");
    assert_non_null(f);
    for (unsigned fi = 0; fi < FILES; fi++)
        fprintf(f, "%u %u\n", 0x20 + fi, PAGES * PS);
    assert_int_equal(fclose(f), 0);
    f = fopen(path_of("image"), "w");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    o.input = path_of("random.trace");
    o.live = path_of("live");
    o.image = path_of("image");
    o.pack = path_of("random.zcp");
    s = convert(&o);
    assert_int_equal(s.distinct, distinct);
    assert_int_equal(s.pack_keys, keys);
    assert_true(keys < FILES * PAGES); /* some keys are not named */

    assert_int_equal(zc_pack_open(o.pack, &pack, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_keys(pack), keys);
    for (unsigned fi = 0; fi < FILES; fi++)
        for (uint64_t p = 0; p < PAGES; p++) {
            uint64_t id;
            int rc = zc_pack_lookup(pack, DEV, 0x20 + fi, p, &id);
            assert_int_equal(rc,
                             accessed[fi][p] || named[fi][p] ? 0 : -ZC_ENOENT);
        }
    zc_pack_close(pack);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_task_hits_and_misses_like_any_task),
        cmocka_unit_test(test_many_tasks_convert_in_linear_work),
        cmocka_unit_test(test_streamed_pages_keep_bounded_tables),
        cmocka_unit_test(test_resident_samples_keep_bounded_memory),
        cmocka_unit_test(test_keys_in_any_order_are_counted_and_mapped_once),
    };
    return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
