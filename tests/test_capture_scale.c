/*
 * test_capture_scale.c - the tracefs conversion (zc_tracefs_convert()) at
 * scale: its work grows with the events, never with their square, and
 * its table of held pages with the pages the kernel holds; the idle task
 * (pid 0) is a task like any other.  (Issue 33, item 10.)
 *
 * Work and room are read from the conversion's own counters
 * (zc__cap_cost, capture/capture.h: lookups and the slots they probed,
 * task records, the most slots of the table), never from the clock or
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
    "live",       "stream.zcp", "random.trace", "random.zcp"};

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_task_hits_and_misses_like_any_task),
        cmocka_unit_test(test_many_tasks_convert_in_linear_work),
    };
    return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
