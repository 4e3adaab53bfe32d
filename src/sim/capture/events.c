/*
 * sim/capture/events.c - one line of a tracefs capture: which task, CPU
 * and time, which event, and the event's details parsed and checked
 * before any stage acts on them.
 *
 * The two layouts of a line:
 *
 *   trace_pipe:  "   TASK-PID   [CPU] FLAGS SECONDS.FRACTION: EVENT: DETAILS"
 *   trace-cmd:   "[INSTANCE:] TASK-PID [CPU] SECONDS.FRACTION: EVENT: DETAILS"
 *
 * The task name may hold blanks, dashes and even " [N]" (a thread pool's
 * "pool [1]"): the CPU field is the last " [N]" that "-PID" precedes and
 * flags, a time and "EVENT:" follow (find_head()), and the pid is after
 * the dash before it.  `trace-cmd report` adds header lines ("cpus=2",
 * "CPU 1 is empty", ...), which are skipped, as are comments and blank
 * lines.  The details differ by event: filemap events print "dev=7:0" or
 * "dev 7:0" and the inode in hex, ext4 events "dev 7,0" and the inode in
 * decimal.  Numbers are parsed by hand, not by sscanf, so that every
 * overflow is bad input rather than a wrapped value.
 *
 * Times: nanoseconds since the first event line (at most 9 decimals).  The
 * events of one CPU never go back in time (bad input).  Across CPUs one
 * rule holds for every event, the first one included: an event older than
 * the newest one before it (so another CPU's) by at most
 * ZC_TRACEFS_REORDER_MAX_NS is a reordering of the merge or of the CPUs'
 * clocks: it takes the newest time, so that no output goes back, and is
 * counted; an older one is bad input, naming the newest one's line.
 * Every event line is numbered in the order read (event_no): tracefs
 * merges the CPUs by time, and pagecache.c orders adds and accesses by it.
 *
 * Bounds that no kernel event passes, checked here so that no line walks
 * or allocates more than they allow: a folio of order at most
 * ZC__CAP_MAX_ORDER (1024 pages), an access of at most ZCA_COUNT_MAX
 * pages (2^20; a read(2) moves at most 2 GiB, a fault-around 2 MiB), a
 * bio of at most 2^32 - 1 bytes (bi_size is 32 bits).
 *
 * The device: given (dev_set), or found by a first pass over the capture
 * (c->scanning), which parses and checks every line as the conversion
 * does, notes the device each event names (a bdevfs page's: its inode,
 * the device number) and nothing else; a capture whose events name
 * several devices is refused (zc__cap_settle_dev()), since the device of
 * the most events may well not be the one traced.
 *
 * Lost events ("[LOST N EVENTS]", "EVENTS DROPPED") make the capture
 * incomplete: bad input.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "trace/access.h" /* ZCA_COUNT_MAX: the pages of one record */

/* Bad input at the current line, formatted. */
static int bad_at(struct zc__cap *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_at(struct zc__cap *c, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return zc__cap_bad(c, what);
}

/* ---- numbers and fields ------------------------------------------------- */

bool zc__cap_take_u64(const char **p, int base, const char *stop, uint64_t *v)
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

static bool field_u64(const char *d, const char *key, int base, uint64_t *v)
{
    const char *s = field(d, key);

    return s && zc__cap_take_u64(&s, base, "", v);
}

/* "MAJ:MIN" or "MAJ,MIN" (ext4 prints a comma) into a dev_t. */
static bool take_dev(const char **p, uint32_t *dev)
{
    uint64_t maj, min;

    if (!zc__cap_take_u64(p, 10, ":,", &maj) || (**p != ':' && **p != ','))
        return false;
    ++*p;
    if (!zc__cap_take_u64(p, 10, "", &min) || maj >= 4096 || min >= (1u << 20))
        return false;
    *dev = (uint32_t)(maj << 20 | min);
    return true;
}

static bool field_dev(const char *d, uint32_t *dev)
{
    const char *s = field(d, "dev");

    return s && take_dev(&s, dev);
}

bool zc__cap_our_dev(struct zc__cap *c, uint32_t dev)
{
    if (dev != c->o.dev) {
        c->n.other_devices++;
        return false;
    }
    c->n.ours++;
    return true;
}

/* ---- the first pass: which device ------------------------------------------
 */

/* The first pass saw an event of device dev. */
static int seen_dev(struct zc__cap *c, uint32_t dev)
{
    uint32_t id;
    int rc = zc__files_id(&c->devs, dev, 0, &id);

    if (rc)
        return rc == -ZC_ENOMEM ? zc__cap_nomem(c)
                                : zc__cap_fail(c, rc, "too many devices");
    if (id >= c->dev_events_cap) {
        size_t cap = c->dev_events_cap;
        if ((rc = zc__cap_reserve(c, &c->dev_events, &cap, id,
                                  sizeof(*c->dev_events), 16)))
            return rc;
        memset(c->dev_events + c->dev_events_cap, 0,
               (cap - c->dev_events_cap) * sizeof(*c->dev_events));
        c->dev_events_cap = cap;
    }
    c->dev_events[id]++;
    return 0;
}

/* "MAJ:MIN (N events)" of the device numbered id, after s[len]. */
static size_t dev_count(const struct zc__cap *c, uint32_t id, char *s,
                        size_t len, size_t cap)
{
    uint32_t dev = zc__files_get(&c->devs, id)->dev;
    int k;

    if (len >= cap)
        return len;
    k = snprintf(s + len, cap - len,
                 "%s%" PRIu32 ":%" PRIu32 " (%" PRIu64 " event%s)",
                 len ? ", " : "", dev >> 20, dev & 0xfffff, c->dev_events[id],
                 c->dev_events[id] == 1 ? "" : "s");
    return k < 0 ? cap : len + (size_t)k;
}

int zc__cap_settle_dev(struct zc__cap *c)
{
    uint32_t n = c->devs.n;
    char list[512] = "";
    size_t len = 0;

    if (!n)
        return zc__cap_refuse(c, -ZC_EFORMAT, "%s: no event of any device",
                              c->o.input);
    if (n > 1) {
        /* the devices of the most events first, four at most */
        bool *told = calloc(n, sizeof(*told));
        if (!told)
            return zc__cap_nomem(c);
        for (int k = 0; k < 4 && k < (int)n; k++) {
            uint32_t best = UINT32_MAX;
            for (uint32_t i = 0; i < n; i++)
                if (!told[i] && (best == UINT32_MAX ||
                                 c->dev_events[i] > c->dev_events[best]))
                    best = i;
            told[best] = true;
            len = dev_count(c, best, list, len, sizeof(list));
        }
        free(told);
        return zc__cap_refuse(c, -ZC_EFORMAT,
                              "%s: events of %" PRIu32 " devices: %s%s; give "
                              "--dev MAJ:MIN (the conversion follows one)",
                              c->o.input, n, list, n > 4 ? ", ..." : "");
    }
    c->o.dev = zc__files_get(&c->devs, 0)->dev;
    c->o.dev_set = true;
    /* Forget the pass: it came first, so nothing else has counted yet. */
    c->n = (zc_tracefs_summary){.dev_found = true};
    c->event_no = 0;
    c->have_t0 = false;
    c->t0_ns = c->newest_ns = c->newest_line = 0;
    memset(c->cpu_last, 0, sizeof(c->cpu_last));
    zc__cap_events_free(c);
    return 0;
}

void zc__cap_events_free(struct zc__cap *c)
{
    zc__files_free(&c->devs);
    free(c->dev_events);
    c->dev_events = NULL;
    c->dev_events_cap = 0;
}

/* ---- the events ---------------------------------------------------------- */

/* "dev MAJ:MIN ino HEX pfn=0x.. ofs=BYTES order=K" (order: absent on
 * kernels before large folios) */
static int filemap(struct zc__cap *c, bool add, const char *d, const char *comm,
                   uint32_t pid)
{
    const char *what = "a filemap add/delete event that does not parse";
    const char *ov = field(d, "order");
    uint32_t sdev;
    uint64_t ino, ofs, order = 0, pages;

    if (!field_dev(d, &sdev) || !field_u64(d, "ino", 16, &ino) ||
        !field_u64(d, "ofs", 10, &ofs) || ofs % ZC__CAP_PAGE)
        return zc__cap_bad(c, what);
    if (ov) {
        const char *v = ov;
        int digits = (int)strspn(ov, "0123456789");
        bool number = zc__cap_take_u64(&v, 10, "", &order);
        /* digits past 2^64 are an order too large, and said so */
        if (!number && (!digits || (ov[digits] && ov[digits] != ' ' &&
                                    ov[digits] != '\t')))
            return zc__cap_bad(c, what);
        if (!number || order > ZC__CAP_MAX_ORDER)
            return bad_at(c,
                          "order %.*s%s too large: a folio is at most order "
                          "%d (x86-64's MAX_PAGE_ORDER, %d pages)",
                          digits > 40 ? 40 : digits, ov,
                          digits > 40 ? "..." : "", ZC__CAP_MAX_ORDER,
                          1 << ZC__CAP_MAX_ORDER);
    }
    pages = 1ull << order;
    if (ofs > UINT64_MAX - (pages * ZC__CAP_PAGE - 1))
        return zc__cap_bad(c, "a filemap add/delete event whose folio runs "
                              "past 2^64 bytes");
    if (c->scanning) /* a bdevfs page's inode is its device */
        return sdev != c->o.bdevfs ? seen_dev(c, sdev)
               : ino <= UINT32_MAX ? seen_dev(c, (uint32_t)ino)
                                   : 0;
    return zc__cap_folio(c, add, sdev, ino, ofs / ZC__CAP_PAGE, pages, comm,
                         pid);
}

/* "MAJ,MIN RWBS SECTOR + COUNT [COMM]" */
static int bio(struct zc__cap *c, const char *d, unsigned cpu, uint32_t pid,
               uint64_t rel)
{
    const char *what = "a block_bio_queue event that does not parse";
    const char *p = d + strspn(d, " ");
    uint32_t dev;
    uint64_t sector, count;
    char rwbs[16];
    size_t len;
    int rc;

    if (!take_dev(&p, &dev))
        return zc__cap_bad(c, what);
    p += strspn(p, " ");
    len = strcspn(p, " ");
    if (!len || len >= sizeof(rwbs))
        return zc__cap_bad(c, what);
    if (strspn(p, "RWDFSMAN") != len) /* blkparse's RWBS letters */
        return zc__cap_bad(c, "a block_bio_queue event with an RWBS other "
                              "than blkparse's letters RWDFSMAN");
    memcpy(rwbs, p, len);
    rwbs[len] = '\0';
    p += len + strspn(p + len, " ");
    if (!zc__cap_take_u64(&p, 10, "", &sector))
        return zc__cap_bad(c, what);
    p += strspn(p, " ");
    if (*p++ != '+')
        return zc__cap_bad(c, what);
    p += strspn(p, " ");
    if (!zc__cap_take_u64(&p, 10, "", &count) ||
        sector > (UINT64_MAX >> 9) - count)
        return zc__cap_bad(c, what);
    if (count > UINT32_MAX >> 9)
        return bad_at(c,
                      "a bio of %" PRIu64 " sectors: more than 4 GiB (a "
                      "bio's size is 32 bits of bytes)",
                      count);
    if (c->scanning)
        return seen_dev(c, dev);
    if (!zc__cap_our_dev(c, dev)) {
        c->n.other++;
        return 0;
    }
    c->n.bios++;
    if (count && strchr(rwbs, 'D') == NULL) /* discards touch no pages */
        for (uint64_t pg = sector * 512 / ZC__CAP_PAGE;
             pg <= ((sector + count) * 512 - 1) / ZC__CAP_PAGE; pg++)
            if ((rc = zc__cap_key(c, dev, 0, pg, 0)))
                return rc;
    return zc__cap_blkparse(c, dev, cpu, pid, rel, rwbs, sector, count,
                            strchr(p, '['));
}

/* get_pages, map_pages: "dev=MAJ:MIN ino=HEX ofs=FIRST-LAST" (bytes);
 * fault: "dev=MAJ:MIN ino=HEX ofs=BYTES"; ext4 writes: "dev MAJ,MIN ino
 * DEC pos BYTES len BYTES". */
static int on_access(struct zc__cap *c, enum zc__cap_access_kind kind,
                     const char *d, uint64_t rel, uint32_t pid)
{
    const char *what = kind == ZC__CAP_WRITE
                           ? "an ext4 write_begin event that does not parse"
                           : "a filemap access event that does not parse";
    uint32_t dev;
    uint64_t ino, first, last, end;

    if (!field_dev(d, &dev))
        return zc__cap_bad(c, what);
    if (kind == ZC__CAP_WRITE) {
        uint64_t pos, len;
        if (!field_u64(d, "pos", 10, &pos) || !field_u64(d, "len", 10, &len) ||
            !field_u64(d, "ino", 10, &ino) || pos > UINT64_MAX / 2 ||
            len > UINT32_MAX)
            return zc__cap_bad(c, what);
        if (!len) {
            c->n.other++;
            return 0;
        }
        first = pos / ZC__CAP_PAGE;
        last = (pos + len - 1) / ZC__CAP_PAGE;
        end = pos + len;
    } else {
        const char *v = field(d, "ofs");
        uint64_t a, b = 0;
        if (!field_u64(d, "ino", 16, &ino) || !v ||
            !zc__cap_take_u64(&v, 10, "-", &a) || a % ZC__CAP_PAGE ||
            a > UINT64_MAX / 2)
            return zc__cap_bad(c, what);
        if (kind == ZC__CAP_FAULT) {
            b = a + ZC__CAP_PAGE - 1;
        } else if (*v++ != '-' || !zc__cap_take_u64(&v, 10, "", &b) || b < a ||
                   b > UINT64_MAX / 2 || (b + 1) % ZC__CAP_PAGE) {
            return zc__cap_bad(c, what);
        }
        first = a / ZC__CAP_PAGE;
        last = b / ZC__CAP_PAGE;
        end = (last + 1) * ZC__CAP_PAGE;
    }
    if (last - first >= ZCA_COUNT_MAX) /* before any page is walked */
        return bad_at(c,
                      "%s of %" PRIu64 " pages: more than the %u pages (4 "
                      "GiB) one event may touch",
                      kind == ZC__CAP_WRITE ? "a write" : "an access",
                      last - first + 1, (unsigned)ZCA_COUNT_MAX);
    if (c->scanning)
        return seen_dev(c, dev);
    if (!zc__cap_our_dev(c, dev)) {
        c->n.other++;
        return 0;
    }
    return zc__cap_access(c, kind, dev, ino, first, last, end, rel, pid);
}

/* The event `name` with its details d. */
static int event(struct zc__cap *c, const char *name, const char *d,
                 const char *task, uint32_t pid, unsigned cpu, uint64_t rel)
{
    static const struct {
        const char *name;
        enum zc__cap_access_kind kind;
    } accesses[] = {
        {"mm_filemap_get_pages", ZC__CAP_READ},
        {"mm_filemap_map_pages", ZC__CAP_MAPPED_RANGE},
        {"mm_filemap_fault", ZC__CAP_FAULT},
        {"ext4_da_write_begin", ZC__CAP_WRITE},
        {"ext4_write_begin", ZC__CAP_WRITE},
    };

    if (!strcmp(name, "block_bio_queue"))
        return bio(c, d, cpu, pid, rel);
    if (c->scanning && strstr(name, "_reclaim_")) /* no device */
        return 0;
    if (!strcmp(name, "mm_filemap_add_to_page_cache"))
        return filemap(c, true, d, task, pid);
    if (!strcmp(name, "mm_filemap_delete_from_page_cache"))
        return filemap(c, false, d, task, pid);
    for (size_t i = 0; i < sizeof(accesses) / sizeof(accesses[0]); i++)
        if (!strcmp(name, accesses[i].name))
            return on_access(c, accesses[i].kind, d, rel, pid);
    if (strstr(name, "_reclaim_begin"))
        return zc__cap_reclaim(c, pid, +1);
    if (strstr(name, "_reclaim_end"))
        return zc__cap_reclaim(c, pid, -1);
    if (!strcmp(name, "tracing_mark_write"))
        c->n.markers++;
    else
        c->n.other++;
    return 0;
}

/* ---- lines -----------------------------------------------------------------
 */

/* Lines of `trace-cmd report` that are no events. */
static bool report_header(const char *p)
{
    return !strncmp(p, "cpus=", 5) || !strncmp(p, "version = ", 10) ||
           (!strncmp(p, "CPU ", 4) && strstr(p, " is empty")) ||
           !strncmp(p, "trace-cmd:", 10);
}

/* "SECONDS.FRACTION:" at *p into *t_ns; *p moved to the colon.  NULL, or
 * what is wrong. */
static const char *timestamp(const char **p, uint64_t *t_ns)
{
    const char *c = *p;
    uint64_t sec, frac = 0;
    int digits = 0;

    if (!zc__cap_take_u64(&c, 10, ".", &sec) || *c != '.' ||
        sec > UINT64_MAX / 1000000000u - 1)
        return "no timestamp";
    for (c++; *c >= '0' && *c <= '9'; c++, digits++)
        if (digits < 9)
            frac = frac * 10 + (uint64_t)(*c - '0');
    if (*c != ':' || !digits)
        return "no timestamp";
    if (digits > 9)
        return "a timestamp with more than 9 decimals (finer than ns)";
    for (; digits < 9; digits++)
        frac *= 10;
    *t_ns = sec * 1000000000u + frac;
    *p = c;
    return NULL;
}

/* The head of an event line, around one candidate CPU field " [N]":
 * the dash before the pid, the CPU, the time, the event's name and the
 * colon after it.  Pointers into the line, which is left as it is. */
struct head {
    char *dash, *name, *colon;
    uint64_t pid, cpu, t_ns;
};

/* The head of the line at p if its CPU field is the " [" at cpu_open:
 * "-PID" and blanks right before it; after it the CPU, optional flags
 * (trace_pipe), "SECONDS.FRACTION:" and "EVENT:", EVENT a C identifier
 * as every trace event's name is.  NULL, or what is wrong.  Each check
 * reads only up to the next blank or bracket, so that trying every
 * candidate of a line is linear in its length. */
static const char *head_at(char *p, char *cpu_open, struct head *h)
{
    char *q = cpu_open, *digits;
    const char *v, *why;

    while (q > p && q[-1] == ' ')
        q--;
    digits = q;
    while (digits > p && digits[-1] >= '0' && digits[-1] <= '9')
        digits--;
    v = digits;
    if (digits == q || digits == p || digits[-1] != '-' ||
        !zc__cap_take_u64(&v, 10, "", &h->pid) || h->pid > UINT32_MAX)
        return "no TASK-PID before the CPU";
    h->dash = digits - 1;
    v = cpu_open + 2;
    if (!zc__cap_take_u64(&v, 10, "]", &h->cpu))
        return "a bad CPU number";
    if (h->cpu >= ZC__CAP_MAX_CPUS)
        return "a CPU number beyond 8191";
    /* Optional flags (trace_pipe), then the timestamp "S.F:" */
    q = (char *)v + 1;
    q += strspn(q, " ");
    v = q + strcspn(q, " [");
    if (v > q && v[-1] != ':')
        q = (char *)v + strspn(v, " ");
    v = q;
    if ((why = timestamp(&v, &h->t_ns)) != NULL)
        return why;
    h->name = (char *)v + 1;
    h->name += strspn(h->name, " ");
    h->colon = h->name + strspn(h->name, "abcdefghijklmnopqrstuvwxyz"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_");
    if (h->colon == h->name || *h->colon != ':')
        return "no event name";
    return NULL;
}

/* The head of the line at p: of its last CPU field " [N]" that has one.
 * A task name may hold " [N]" itself (a thread pool's "pool [1]", or a
 * name made to look like a line, "w-9 [1] 0.0: x"), but nothing follows
 * the true CPU field in the task's name; the details of the events read
 * hold no "-PID [N] S.F: EVENT:".  NULL, or what is wrong with the first
 * CPU field (or that there is none). */
static const char *find_head(char *p, struct head *h)
{
    const char *first_why = NULL;
    struct head at;
    bool found = false;

    for (char *s = strstr(p, " ["); s; s = strstr(s + 1, " [")) {
        size_t d = strspn(s + 2, "0123456789");
        const char *why;
        if (!d || s[2 + d] != ']')
            continue;
        if ((why = head_at(p, s, &at)) == NULL) {
            *h = at;
            found = true;
        } else if (!first_why) {
            first_why = why;
        }
    }
    if (found)
        return NULL;
    return first_why ? first_why : "not a tracefs event line";
}

/* The time of an event of CPU cpu, checked against the CPU's previous
 * one and the newest one (the essay's rule): 0 and *rel, ns since the
 * first event. */
static int event_time(struct zc__cap *c, unsigned cpu, uint64_t t_ns,
                      uint64_t *rel)
{
    if (!c->have_t0) {
        c->t0_ns = c->newest_ns = t_ns;
        c->newest_line = c->lineno;
        c->have_t0 = true;
    }
    if (t_ns < c->cpu_last[cpu])
        return zc__cap_bad(c, "time goes backwards: an event older than its "
                              "CPU's previous one");
    c->cpu_last[cpu] = t_ns;
    if (t_ns >= c->newest_ns) {
        c->newest_ns = t_ns;
        c->newest_line = c->lineno;
    } else if (c->newest_ns - t_ns > ZC_TRACEFS_REORDER_MAX_NS) {
        uint64_t by = c->newest_ns - t_ns;
        return bad_at(c,
                      "an event %" PRIu64 ".%09" PRIu64 " s older than line "
                      "%" PRIu64 "'s, of another CPU: more than the %u us "
                      "two CPUs may disagree by (record with trace_clock "
                      "mono)",
                      by / 1000000000u, by % 1000000000u, c->newest_line,
                      ZC_TRACEFS_REORDER_MAX_NS / 1000u);
    } else {
        c->n.reordered++;
    }
    *rel = c->newest_ns - c->t0_ns;
    return 0;
}

int zc__cap_line(struct zc__cap *c, char *s)
{
    struct head h = {0};
    char *p, *q, *task;
    const char *why;
    uint64_t rel = 0;
    int rc;

    p = s + strspn(s, " \t");
    if (*p == '#' || *p == '\0' || report_header(p))
        return 0;
    if ((strstr(p, "[LOST ") && strstr(p, " EVENTS]")) ||
        strstr(p, "EVENTS DROPPED"))
        return zc__cap_bad(c, "the recording lost events (its buffer "
                              "overflowed): it is incomplete");
    if ((why = find_head(p, &h)) != NULL)
        return zc__cap_bad(c, why);
    /* TASK-PID: trace-cmd puts "INSTANCE:" and blanks before it. */
    *h.dash = '\0';
    task = p + strspn(p, " ");
    q = task + strcspn(task, " ");
    if (q > task && q[-1] == ':' && q[strspn(q, " ")]) /* "INSTANCE:" */
        task = q + strspn(q, " ");
    if ((rc = event_time(c, (unsigned)h.cpu, h.t_ns, &rel)))
        return rc;
    *h.colon = '\0';
    q = h.colon + 1;
    q += strspn(q, " ");
    c->n.lines++;
    c->event_no++;
    return event(c, h.name, q, task, (uint32_t)h.pid, (unsigned)h.cpu, rel);
}
