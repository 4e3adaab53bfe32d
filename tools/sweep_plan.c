/*
 * sweep_plan.c - a sweep cut into jobs that run anywhere, then merged.
 *
 *   zcache-sweep --plan DIR ARGS...   writes the plan into DIR
 *   zcache-sweep --run-job DIR N      runs job N, writes its rows into DIR
 *   zcache-sweep --merge DIR          reads every job's rows, reports
 *
 * A job is a work of sweep.h (one trace at one page-cache size, or an
 * adaptive row, or an op stream's rows).  The plan keeps the arguments,
 * not the rows: every process parses them again and makes the same rows
 * and works in the same order.  That the inputs are still what they were
 * is checked, not assumed: the plan keeps a fingerprint (the traces, their
 * sizes and modification times, the content sources, every job's rows),
 * and --run-job and --merge refuse a plan whose fingerprint differs now.
 *
 * DIR/
 *   plan.args       the arguments, the directory they were given in, the
 *                   library's version (length-prefixed strings)
 *   fingerprint     what the arguments made (text, compared byte for byte)
 *   manifest.json   the same for people and scripts: "jobs", "memory_mb"
 *   results/job-N.rows    a done job's rows; written to a temporary name,
 *                         flushed to disk and renamed, so a file of that
 *                         name is whole (and ends with "end N")
 *   results/job-N.failed  a job that ran and failed: its rows' errors
 *   logs/           where scripts/slurm-sweep.sh has Slurm write
 *
 * Rows are written as text, every counter by its library field list (the
 * X-macros), doubles as hex floats, strings with their lengths: read back,
 * a row is the bytes it was, and the reports (sweep_report.c) write from
 * it what a local sweep writes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "sweep.h"
#include "trace_content.h"

#define PLAN_MAGIC "zcache-sweep plan 2"
#define ARG_MAX_LEN 65536 /* bytes of an argument a plan keeps, with NUL */
#define ROWS_MAGIC "zcache-sweep rows 1"
#define FAILED_MAGIC "zcache-sweep failed job 1"

/* ---- small helpers ------------------------------------------------------ */

/* A growing text: what the fingerprint and the rows are built in. */
struct text {
    char *s;
    size_t len, cap;
};

static void text_add(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
    va_list ap, aq;
    int n;

    va_start(ap, fmt);
    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die(1, "%s", "cannot format");
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        if (!(t->s = realloc(t->s, t->cap)))
            die(1, "%s", "out of memory");
    }
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, aq);
    va_end(aq);
    t->len += (size_t)n;
}

/* A string that may hold anything: its length, a colon, its bytes. */
static void text_str(struct text *t, const char *key, const char *s)
{
    text_add(t, "%s %zu:", key, strlen(s));
    text_add(t, "%s\n", s);
}

/* Write t to path through a temporary file in the same directory, flushed
 * to disk before the rename: a reader sees the old file or the whole new
 * one.  0, or -1 with errno. */
static int write_atomic(const char *path, const struct text *t)
{
    char tmp[PATH_MAX + 128];
    int fd, e;
    size_t done = 0;

    char host[64] = "";

    /* nodes that share the file system may share pids, not host names */
    gethostname(host, sizeof(host) - 1);
    snprintf(tmp, sizeof(tmp), "%s.tmp.%.63s.%ld", path, host, (long)getpid());
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return -1;
    while (done < t->len) {
        ssize_t n = write(fd, t->s + done, t->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        done += (size_t)n;
    }
    if (fsync(fd))
        goto fail;
    if (close(fd)) {
        fd = -1;
        goto fail;
    }
    if (rename(tmp, path))
        goto fail_closed;
    return 0;
fail:
    e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
fail_closed:
    e = errno;
    unlink(tmp);
    errno = e;
    return -1;
}

/* Why the last read_all() failed. */
static const char *read_why;

/* The whole of file path (NUL-terminated) and its length; NULL when it
 * cannot be read, why in read_why (errno ENOENT when it does not exist).
 * Only a regular file of at most READ_MAX bytes is read: a FIFO or a
 * device in a plan directory is refused, not waited on or read forever. */
#define READ_MAX (256u << 20)
static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat sb;
    FILE *f;
    char *s = NULL;
    size_t cap = 0, n = 0;

    if (fd < 0) {
        read_why = strerror(errno);
        return NULL;
    }
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > READ_MAX) {
        read_why = !S_ISREG(sb.st_mode) ? "not a regular file"
                                        : "larger than any a plan writes";
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    if (!(f = fdopen(fd, "rb"))) {
        read_why = strerror(errno);
        close(fd);
        return NULL;
    }
    for (;;) {
        if (n + 65536 + 1 > cap && !(s = realloc(s, cap = 2 * cap + 65536 + 1)))
            die(1, "%s", "out of memory");
        size_t got = fread(s + n, 1, 65536, f);
        n += got;
        if (got < 65536 || n > READ_MAX)
            break;
    }
    if (ferror(f) || n > READ_MAX) {
        int e = errno;
        read_why = ferror(f) ? strerror(e) : "larger than any a plan writes";
        fclose(f);
        free(s);
        errno = e ? e : EINVAL;
        return NULL;
    }
    fclose(f);
    s[n] = '\0';
    *len = n;
    return s;
}

/* A reader of those texts: words, numbers and length-prefixed strings,
 * with the line it is at for messages. */
struct cursor {
    const char *p, *end, *path;
    size_t line;
    char err[256];
};

static bool cur_fail(struct cursor *c, const char *what)
{
    if (!c->err[0])
        snprintf(c->err, sizeof(c->err), "%s:%zu: %s", c->path, c->line, what);
    return false;
}

/* The keyword `key` and a space. */
static bool cur_key(struct cursor *c, const char *key)
{
    size_t n = strlen(key);

    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, key, n) ||
        (c->p[n] != ' ' && c->p[n] != '\n')) {
        char msg[128];
        snprintf(msg, sizeof(msg), "want '%s'", key);
        return cur_fail(c, msg);
    }
    c->p += n;
    if (*c->p == ' ')
        c->p++;
    return true;
}

static bool cur_u64(struct cursor *c, uint64_t *v)
{
    char *e;

    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return cur_fail(c, "want a number");
    errno = 0;
    *v = strtoull(c->p, &e, 10);
    if (errno || (*e != ' ' && *e != '\n'))
        return cur_fail(c, "want a number");
    c->p = e + (*e == ' ');
    return true;
}

static bool cur_double(struct cursor *c, double *v)
{
    char *e;

    if (c->p >= c->end)
        return cur_fail(c, "want a number");
    errno = 0;
    *v = strtod(c->p, &e);
    if (e == c->p || errno || (*e != ' ' && *e != '\n'))
        return cur_fail(c, "want a number");
    c->p = e + (*e == ' ');
    return true;
}

/* Up to 16 hex digits (an id or a checksum), ended by a space or a line's
 * end, as cur_u64 reads a number. */
static bool cur_hex(struct cursor *c, uint64_t *v)
{
    size_t n = 0;

    *v = 0;
    while (n < 16 && c->p + n < c->end && isxdigit((unsigned char)c->p[n])) {
        char ch = (char)tolower((unsigned char)c->p[n++]);
        *v = *v << 4 | (uint64_t)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
    }
    if (!n || c->p + n >= c->end || (c->p[n] != ' ' && c->p[n] != '\n'))
        return cur_fail(c, "want a hexadecimal number");
    c->p += n + (c->p[n] == ' ');
    return true;
}

/* The first line of a file of ours: its magic words. */
static bool cur_magic(struct cursor *c, const char *magic)
{
    size_t n = strlen(magic);

    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, magic, n) ||
        c->p[n] != '\n')
        return false;
    c->p += n + 1;
    c->line++;
    return true;
}

static bool cur_eol(struct cursor *c)
{
    if (c->p >= c->end || *c->p != '\n')
        return cur_fail(c, "want the end of the line");
    c->p++;
    c->line++;
    return true;
}

/* "KEY LEN:BYTES\n" into out[n] (refused when longer). */
static bool cur_str(struct cursor *c, const char *key, char *out, size_t n)
{
    uint64_t len;
    char *e;

    if (!cur_key(c, key))
        return false;
    errno = 0;
    len = strtoull(c->p, &e, 10);
    if (errno || *e != ':' || len >= n || len > (uint64_t)(c->end - e - 1))
        return cur_fail(c, "want LENGTH:TEXT");
    memcpy(out, e + 1, (size_t)len);
    out[len] = '\0';
    for (uint64_t i = 0; i < len; i++)
        c->line += out[i] == '\n';
    c->p = e + 1 + len;
    return cur_eol(c);
}

/* ---- the plan's files --------------------------------------------------- */

static char *plan_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);

    if (!p)
        die(1, "%s", "out of memory");
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static char *job_path(const char *dir, size_t job, const char *ext)
{
    char name[64];

    snprintf(name, sizeof(name), "results/job-%zu.%s", job, ext);
    return plan_path(dir, name);
}

/* What a job is, in words: its trace, its page cache or adaptive row. */
static void job_words(const struct work *w, char *out, size_t n)
{
    const struct job *j = &rows[w->first];

    if (w->kind == WORK_OPS)
        snprintf(out, n, "%s, %zu row%s", units[w->unit].name, w->n,
                 w->n > 1 ? "s" : "");
    else if (w->kind == WORK_ADAPTIVE)
        snprintf(out, n, "%s, %s", units[w->unit].name, j->label);
    else
        snprintf(out, n, "%s, page cache %" PRIu64 " pages, %zu row%s",
                 units[w->unit].name, j->pc_pages, w->n, w->n > 1 ? "s" : "");
}

/* A bound on the memory job w takes, in bytes: the page cache's model
 * (about 128 bytes a page, the LRU curve's as much again), every row's
 * zcache at its capacity plus a quarter for metadata, the memo (--memo,
 * which the rows with a zcache fill up to its size at most), and 128 MiB
 * for the rest (the reader, the content source's blocks, the threads; the
 * shipped traces peak at 72 MiB with no memo).  An op stream's rows run
 * a thread each, so all at once.  A job whose peak passes its bound says
 * so in its summary line. */
static uint64_t job_memory(const struct work *w)
{
    uint64_t b = 128ull << 20, caps = 0;
    bool zc = false;

    for (size_t i = w->first; i < w->first + w->n; i++) {
        caps += rows[i].cap_bytes + rows[i].cap_bytes / 4;
        zc |= rows[i].cap_bytes != 0 || rows[i].adaptive;
    }
    if (w->kind != WORK_OPS)
        b += rows[w->first].pc_pages * 256;
    if (zc)
        b += o.memo_mb << 20;
    /* every job makes every row of the plan (about 3.5 KiB each) */
    b += (uint64_t)nrows * 4096 + (uint64_t)nunits * sizeof(struct unit);
    return b + caps;
}

static void file_line(struct text *t, const char *path, const struct stat *sb)
{
    text_add(t, "  file %s size %lld mtime %lld.%09ld\n", path,
             (long long)sb->st_size, (long long)sb->st_mtim.tv_sec,
             (long)sb->st_mtim.tv_nsec);
}

/* What the arguments made, as text: each trace with its files' sizes and
 * modification times, and each job's rows. */
static void fingerprint(struct text *t)
{
    text_add(t, "libzcache %s\npage_size %zu\ntraces %zu\n", zc_version(),
             o.page_size, nunits);
    for (size_t i = 0; i < nunits; i++) {
        const struct unit *u = &units[i];
        text_add(t, "trace %zu %s (%s) content %s\n", i, u->name, u->read_as,
                 u->is_ops ? "-" : u->content);
        for (size_t k = 0; k < u->npaths; k++) {
            struct stat sb;
            char p[PATH_MAX + 32];
            snprintf(p, sizeof(p), "%s", u->paths[k]);
            if (!stat(p, &sb)) {
                file_line(t, p, &sb);
                continue;
            }
            /* a blktrace base name stands for its per-CPU files, .0, .1,
             * ... up to the first missing one (as the reader takes them):
             * each is fingerprinted, and so is where the list ends */
            for (unsigned cpu = 0;; cpu++) {
                snprintf(p, sizeof(p), "%s.%u", u->paths[k], cpu);
                if (stat(p, &sb)) {
                    text_add(t, "  no file %s\n", p);
                    break;
                }
                file_line(t, p, &sb);
            }
        }
        const char *cf = u->is_ops ? NULL : trace_content_file(u->content);
        struct stat sb;
        if (cf && !stat(cf, &sb)) {
            text_add(t, "  content");
            file_line(t, cf, &sb);
        }
    }
    text_add(t, "rows %zu\njobs %zu\n", nrows, nworks);
    for (size_t w = 0; w < nworks; w++) {
        const struct work *wk = &works[w];
        text_add(t, "job %zu trace %zu kind %d rows %zu+%zu\n", w, wk->unit,
                 (int)wk->kind, wk->first, wk->n);
        for (size_t i = wk->first; i < wk->first + wk->n; i++)
            text_add(t, "  row %zu pc %" PRIu64 " spec %s\n", i,
                     rows[i].pc_pages, rows[i].spec[0] ? rows[i].spec : "off");
    }
}

/* FNV-1a over s[0..n): the plan's id and a rows file's checksum. */
static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The plan's id: the fingerprint's hash with the time it was made, so
 * that rows of an earlier plan in a reused directory are never read. */
static uint64_t plan_id_of(const struct text *t)
{
    uint64_t h = fnv1a(t->s, t->len);
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    h ^= (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
         (uint64_t)getpid() << 32;
    return h;
}

/* ---- --plan ------------------------------------------------------------- */

/* A JSON string, escaped as every output of the tools is (outfile.c). */
static void json_str(struct text *t, const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    if (!f)
        die(1, "%s", "out of memory");
    out_json_string(f, s);
    if (fclose(f))
        die(1, "%s", "out of memory");
    text_add(t, "%s", buf);
    free(buf);
}

/* argv[i] as the plan keeps it: a relative --plot prefix made absolute,
 * so that a merge run anywhere writes (and names) the same files. */
static const char *stored_arg(char **argv, int i, const char *cwd)
{
    static char buf[PATH_MAX + 1100];

    if (i < 2 || strcmp(argv[i - 1], "--plot") || argv[i][0] == '/')
        return argv[i];
    snprintf(buf, sizeof(buf), "%s/%s", cwd, argv[i]);
    return buf;
}

static const char *const kind_name[] = {"page-cache size", "adaptive row",
                                        "op stream"};

void plan_write(const char *dir, int argc, char **argv)
{
    struct text args = {0}, fp = {0}, man = {0};
    char cwd[PATH_MAX], *p;
    uint64_t id, mem_max = 0;
    struct stat sb;

    if (!getcwd(cwd, sizeof(cwd)))
        die(1, "cannot tell the working directory: %s", strerror(errno));
    p = plan_path(dir, "plan.args");
    if (!stat(p, &sb))
        die(2,
            "--plan %s: holds a plan already (--merge it, or remove the "
            "directory for a new one)",
            dir);
    free(p);
    if (mkdir(dir, 0755) && errno != EEXIST)
        die(2, "--plan %s: cannot make the directory: %s", dir,
            strerror(errno));
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
        die(2, "--plan %s: not a directory", dir);
    {
        const char *sub[] = {"results", "logs"};
        for (int i = 0; i < 2; i++) {
            char *s = plan_path(dir, sub[i]);
            if (mkdir(s, 0755) && errno != EEXIST)
                die(2, "--plan %s: cannot make %s: %s", dir, s,
                    strerror(errno));
            if (stat(s, &sb) || !S_ISDIR(sb.st_mode))
                die(2, "--plan %s: %s is there and is no directory", dir, s);
            free(s);
        }
    }
    /* what every job reads again must be there to read again */
    if (o.manifest && (stat(o.manifest, &sb) || !S_ISREG(sb.st_mode)))
        die(2,
            "--plan: --manifest %s is no regular file: every job reads it "
            "again (write it to a file)",
            o.manifest);
    for (int i = 1; i < argc; i++)
        if (strlen(stored_arg(argv, i, cwd)) >= ARG_MAX_LEN)
            die(2, "--plan: an argument of %zu bytes (a plan keeps at most %d)",
                strlen(argv[i]), ARG_MAX_LEN - 1);
    fingerprint(&fp);
    id = plan_id_of(&fp);
    /* the arguments but --plan DIR */
    text_add(&args, PLAN_MAGIC "\n");
    text_str(&args, "libzcache", zc_version());
    text_add(&args, "plan %016" PRIx64 "\n", id);
    text_str(&args, "cwd", cwd);
    text_add(&args, "argc %d\n", argc - 3);
    for (int i = 1; i < argc; i++)
        if (i != o.plan_argi && i != o.plan_argi + 1)
            text_str(&args, "arg", stored_arg(argv, i, cwd));
    /* the job count (checked before a job starts), and a checksum of
     * every byte before it: an edited plan is refused */
    text_add(&args, "jobs %zu\n", nworks);
    text_add(&args, "sum %016" PRIx64 "\n", fnv1a(args.s, args.len));
    text_add(&man, "{\n  \"tool\": \"zcache-sweep\",\n  \"libzcache\": ");
    json_str(&man, zc_version());
    text_add(&man, ",\n  \"plan\": \"%016" PRIx64 "\",\n  \"made_in\": ", id);
    json_str(&man, cwd);
    text_add(&man, ",\n  \"arguments\": [");
    for (int i = 1, n = 0; i < argc; i++)
        if (i != o.plan_argi && i != o.plan_argi + 1) {
            text_add(&man, "%s", n++ ? ", " : "");
            json_str(&man, stored_arg(argv, i, cwd));
        }
    text_add(&man, "],\n  \"traces\": %zu,\n  \"rows\": %zu,\n", nunits, nrows);
    for (size_t w = 0; w < nworks; w++)
        if (job_memory(&works[w]) > mem_max)
            mem_max = job_memory(&works[w]);
    text_add(&man, "  \"jobs\": %zu,\n  \"memory_mb\": %" PRIu64 ",\n", nworks,
             (mem_max + (1u << 20) - 1) >> 20);
    text_add(&man, "  \"job_list\": [");
    for (size_t w = 0; w < nworks; w++) {
        const struct work *wk = &works[w];
        text_add(&man, "%s\n    {\"job\": %zu, \"trace\": ", w ? "," : "", w);
        json_str(&man, units[wk->unit].name);
        text_add(&man,
                 ", \"kind\": \"%s\", \"page_cache_pages\": %" PRIu64
                 ", \"rows\": %zu, \"memory_bytes\": %" PRIu64 "}",
                 kind_name[wk->kind],
                 wk->kind == WORK_OPS ? 0 : rows[wk->first].pc_pages, wk->n,
                 job_memory(wk));
    }
    text_add(&man, "\n  ]\n}\n");
    const char *names[] = {"fingerprint", "manifest.json", "plan.args"};
    const struct text *texts[] = {&fp, &man, &args};
    for (int i = 0; i < 3; i++) { /* plan.args last: it makes DIR a plan */
        p = plan_path(dir, names[i]);
        if (write_atomic(p, texts[i]))
            die(1, "cannot write %s: %s", p, strerror(errno));
        free(p);
    }
    printf("plan %s: %zu job%s (%zu trace%s, %zu row%s), each up to %" PRIu64
           " MiB of memory\n"
           "run each:   " NAME " --run-job %s N    (N = 0 .. %zu)\n"
           "then:       " NAME " --merge %s\n"
           "on Slurm:   scripts/slurm-sweep.sh %s\n",
           dir, nworks, nworks != 1 ? "s" : "", nunits, nunits != 1 ? "s" : "",
           nrows, nrows != 1 ? "s" : "", (mem_max + (1u << 20) - 1) >> 20, dir,
           nworks - 1, dir, dir);
    free(args.s);
    free(fp.s);
    free(man.s);
}

/* ---- --run-job and --merge: the plan's arguments ------------------------ */

static void job_died(void);

static uint64_t plan_id, plan_jobs;
static const char *run_dir_early; /* --run-job's plan, once it is known */
static char **plan_argv; /* the plan's arguments: main()'s argv from here on */

void plan_command(int *argc, char ***argv)
{
    char **av = *argv, *dir, *p, *text, **nav;
    const char *mode = av[1];
    bool merge = !strcmp(mode, "--merge");
    struct cursor c;
    size_t len, n = 0;
    uint64_t nargs;
    char cwd[PATH_MAX], ver[64], *buf = malloc(ARG_MAX_LEN);
    const char *ov_output = NULL, *ov_plot = NULL, *ov_jobs = NULL;

    if (*argc < (merge ? 3 : 4))
        die(2, "usage: " NAME " %s",
            merge ? "--merge DIR [--output FORMAT] "
                    "[--plot PREFIX]"
                  : "--run-job DIR N [--jobs N]");
    if (!(dir = realpath(av[2], NULL)))
        die(2, "%s %s: %s", mode, av[2], strerror(errno));
    if (!merge) {
        char *e;
        errno = 0;
        unsigned long long j = strtoull(av[3], &e, 10);
        if (av[3][0] < '0' || av[3][0] > '9' || *e || errno)
            die(2, "--run-job %s %s: want a job number", av[2], av[3]);
        o.run_job = (size_t)j;
    }
    /* the few options that belong to this run, not to the plan */
    for (int i = merge ? 3 : 4; i < *argc; i += 2) {
        const char *a = av[i], *v = i + 1 < *argc ? av[i + 1] : NULL;
        if (a[0] != '-')
            die(2, "%s %s: '%s': one plan at a time%s", mode, av[2], a,
                merge ? "" : ", one job at a time");
        if (!v)
            die(2, "%s %s: option %s needs a value", mode, av[2], a);
        if (merge && !strcmp(a, "--output"))
            ov_output = v;
        else if (merge && !strcmp(a, "--plot"))
            ov_plot = v;
        else if (!merge && !strcmp(a, "--jobs"))
            ov_jobs = v;
        else
            die(2,
                "%s: '%s': the plan holds the sweep's options (%s takes "
                "only %s)",
                mode, a, mode, merge ? "--output and --plot" : "--jobs");
    }
    /* --plot relative to where the merge is run, not the plan's place */
    if (ov_plot && ov_plot[0] != '/' && getcwd(cwd, sizeof(cwd))) {
        size_t l = strlen(cwd) + strlen(ov_plot) + 2;
        char *abs = malloc(l);
        if (!abs)
            die(1, "%s", "out of memory");
        snprintf(abs, l, "%s/%s", cwd, ov_plot);
        ov_plot = abs;
    }
    p = plan_path(dir, "plan.args");
    if (!(text = read_all(p, &len)))
        die(2, "%s %s: no plan there (%s: %s)", mode, av[2], p, read_why);
    c = (struct cursor){.p = text, .end = text + len, .path = p, .line = 1};
    if (!cur_magic(&c, PLAN_MAGIC))
        die(2, "%s: not a plan of this program", p);
    if (!cur_str(&c, "libzcache", ver, sizeof(ver)))
        die(2, "%s", c.err);
    if (strcmp(ver, zc_version()))
        die(2,
            "%s: the plan was made by libzcache %s, this is %s: run the "
            "build that made it, or make the plan again",
            av[2], ver, zc_version());
    if (!cur_key(&c, "plan") || !cur_hex(&c, &plan_id))
        die(2, "%s", c.err);
    if (!buf)
        die(1, "%s", "out of memory");
    if (!cur_eol(&c) || !cur_str(&c, "cwd", cwd, sizeof(cwd)) ||
        !cur_key(&c, "argc") || !cur_u64(&c, &nargs) || !cur_eol(&c))
        die(2, "%s", c.err);
    if (nargs > 100000)
        die(2, "%s:%zu: %" PRIu64 " arguments: not a plan's", p, c.line - 1,
            nargs);
    nav = plan_argv = calloc(nargs + 8, sizeof(*nav));
    if (!nav)
        die(1, "%s", "out of memory");
    nav[n++] = av[0];
    for (uint64_t i = 0; i < nargs; i++) {
        if (!cur_str(&c, "arg", buf, ARG_MAX_LEN))
            die(2, "%s", c.err);
        /* a job never plots: a --plot whose folder is gone is no matter */
        if (!merge && !strcmp(buf, "--plot") && i + 1 < nargs) {
            if (!cur_str(&c, "arg", buf, ARG_MAX_LEN))
                die(2, "%s", c.err);
            i++;
            continue;
        }
        if (!(nav[n++] = strdup(buf)))
            die(1, "%s", "out of memory");
    }
    {
        const char *sum_at;
        uint64_t sum = 0;
        if (!cur_key(&c, "jobs") || !cur_u64(&c, &plan_jobs) || !cur_eol(&c))
            die(2, "%s", c.err);
        sum_at = c.p;
        if (!cur_key(&c, "sum") || !cur_hex(&c, &sum))
            die(2, "%s", c.err);
        if (!cur_eol(&c) || c.p != c.end)
            die(2, "%s:%zu: want the end of the plan", p, c.line);
        if (sum != fnv1a(text, (size_t)(sum_at - text)))
            die(2,
                "%s: changed since the plan was made (its checksum "
                "differs): make the plan again",
                p);
    }
    if (!merge) {
        if (o.run_job >= plan_jobs)
            die(2, "--run-job %s %zu: the plan has jobs 0 to %" PRIu64, av[2],
                o.run_job, plan_jobs - 1);
        /* from here on an error exit is the job's failure, kept */
        run_dir_early = dir;
        cli_init(NAME, job_died);
    }
    free(buf);
    if (ov_output) {
        nav[n++] = "--output";
        nav[n++] = (char *)ov_output;
    }
    if (ov_plot) {
        nav[n++] = "--plot";
        nav[n++] = (char *)ov_plot;
    }
    if (!merge) {
        /* one CPU-bound job a task: --run-job's --jobs, else the threads
         * Slurm gave it, else the plan's --jobs, else one */
        static char njobs_arg[24];
        const char *s = getenv("SLURM_CPUS_PER_TASK");
        bool planned = false;
        for (size_t i = 1; i + 1 < n; i++)
            planned |= !strcmp(nav[i], "--jobs");
        if (ov_jobs || (s && *s) || !planned) {
            snprintf(njobs_arg, sizeof(njobs_arg), "%s",
                     ov_jobs   ? ov_jobs
                     : s && *s ? s
                               : "1");
            nav[n++] = "--jobs";
            nav[n++] = njobs_arg;
        }
    }
    free(text);
    free(p);
    if (chdir(cwd))
        die(2,
            "%s: the plan was made in %s, which this machine cannot enter "
            "(%s): plans need a file system shared by every node",
            av[2], cwd, strerror(errno));
    if (merge)
        o.merge_dir = dir;
    else
        o.run_dir = dir;
    *argc = (int)n;
    *argv = nav;
}

/* The plan's fingerprint against what the arguments make now. */
void plan_check(const char *dir)
{
    struct text now = {0};
    char *p = plan_path(dir, "fingerprint"), *then;
    size_t len, line = 1, at = 0;

    if (!(then = read_all(p, &len)))
        die(2, "%s: %s", p, read_why);
    fingerprint(&now);
    while (at < len && at < now.len && then[at] == now.s[at])
        line += then[at++] == '\n';
    if (at != len || len != now.len) {
        char *a = then + at, *b = now.s + at;
        while (a > then && a[-1] != '\n')
            a--, b--;
        die(2,
            "%s: the sweep is no longer the one planned (its traces or "
            "their contents changed since, or the plan's files): %s line "
            "%zu was '%.*s', now '%.*s'",
            dir, p, line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    free(then);
    free(now.s);
    free(p);
}

/* ---- a job's rows ------------------------------------------------------- */

static void write_row(struct text *t, size_t i)
{
    const struct job *j = &rows[i];

    text_add(t,
             "row %zu\nrc %d\ncap_bytes %" PRIu64 "\nhave_zs %d\n"
             "mrc_hits %" PRIu64 "\n",
             i, j->rc, j->cap_bytes, j->have_zs, j->mrc_hits);
    text_str(t, "config", j->config);
    text_str(t, "compressor", j->compressor);
    text_str(t, "err", j->err);
    text_add(t, "st");
#define X(f) text_add(t, " %" PRIu64, j->st.f);
    ZC_REPLAY_STATS_FIELDS(X)
#undef X
    text_add(t, "\nzs");
#define X(f) text_add(t, " %" PRIu64, j->zs.f);
    ZC_STATS_FIELDS(X)
#undef X
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        text_add(t, " %" PRIu64, j->zs.compr_size_hist[b]);
    text_add(t, "\nepochs %zu\n", j->nepochs);
    for (size_t e = 0; e < j->nepochs; e++) {
        const zc_adapt_epoch *x = &j->epochs[e];
        text_add(t,
                 "e %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                 " %a %a %a %a %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                 x->accesses, x->pc_pages, x->zc_bytes, x->next_pc_pages,
                 x->next_zc_bytes, x->est_disk_reads, x->est_cost_ns, x->put_ns,
                 x->get_ns, x->disk_reads, x->zc_hits, x->pc_hits);
    }
}

static bool read_row(struct cursor *c, size_t i)
{
    struct job *j = &rows[i];
    uint64_t v, rc, have, ne;

    if (!cur_key(c, "row") || !cur_u64(c, &v) || !cur_eol(c))
        return false;
    if (v != i)
        return cur_fail(c, "not the row this job makes");
    if (!cur_key(c, "rc") || !cur_u64(c, &rc) || !cur_eol(c) ||
        !cur_key(c, "cap_bytes") || !cur_u64(c, &j->cap_bytes) || !cur_eol(c) ||
        !cur_key(c, "have_zs") || !cur_u64(c, &have) || !cur_eol(c) ||
        !cur_key(c, "mrc_hits") || !cur_u64(c, &j->mrc_hits) || !cur_eol(c) ||
        !cur_str(c, "config", j->config, sizeof(j->config)) ||
        !cur_str(c, "compressor", j->compressor, sizeof(j->compressor)) ||
        !cur_str(c, "err", j->err, sizeof(j->err)) || !cur_key(c, "st"))
        return false;
    j->rc = (int)rc;
    j->have_zs = have != 0;
#define X(f)                                                                   \
    if (!cur_u64(c, &j->st.f))                                                 \
        return false;
    ZC_REPLAY_STATS_FIELDS(X)
#undef X
    if (!cur_eol(c) || !cur_key(c, "zs"))
        return false;
#define X(f)                                                                   \
    if (!cur_u64(c, &j->zs.f))                                                 \
        return false;
    ZC_STATS_FIELDS(X)
#undef X
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        if (!cur_u64(c, &j->zs.compr_size_hist[b]))
            return false;
    if (!cur_eol(c) || !cur_key(c, "epochs") || !cur_u64(c, &ne) || !cur_eol(c))
        return false;
    if (ne > (uint64_t)(c->end - c->p) / 24)
        return cur_fail(c, "more epochs than the file holds");
    free(j->epochs);
    j->nepochs = (size_t)ne;
    if (!(j->epochs = calloc(ne ? (size_t)ne : 1, sizeof(*j->epochs))))
        die(1, "%s", "out of memory");
    for (size_t e = 0; e < j->nepochs; e++) {
        zc_adapt_epoch *x = &j->epochs[e];
        if (!cur_key(c, "e") || !cur_u64(c, &x->accesses) ||
            !cur_u64(c, &x->pc_pages) || !cur_u64(c, &x->zc_bytes) ||
            !cur_u64(c, &x->next_pc_pages) || !cur_u64(c, &x->next_zc_bytes) ||
            !cur_double(c, &x->est_disk_reads) ||
            !cur_double(c, &x->est_cost_ns) || !cur_double(c, &x->put_ns) ||
            !cur_double(c, &x->get_ns) || !cur_u64(c, &x->disk_reads) ||
            !cur_u64(c, &x->zc_hits) || !cur_u64(c, &x->pc_hits) || !cur_eol(c))
            return false;
    }
    return true;
}

/* The peak resident memory of this process, MiB. */
static double peak_mib(void)
{
    struct rusage ru;

    return getrusage(RUSAGE_SELF, &ru) ? 0 : (double)ru.ru_maxrss / 1024.0;
}

/* Replace job n's result by text t under name `ext` ("rows" or "failed"),
 * the other name removed first: never both.  0, or -1 with a message in
 * err[]. */
static int put_result(const char *dir, size_t n, const char *ext,
                      const struct text *t, char *err, size_t elen)
{
    char *keep = job_path(dir, n, ext),
         *drop = job_path(dir, n, strcmp(ext, "rows") ? "rows" : "failed");
    int rc = 0;

    if (unlink(drop) && errno != ENOENT) {
        snprintf(err, elen, "cannot remove %s: %s", drop, strerror(errno));
        rc = -1;
    } else if (write_atomic(keep, t)) {
        snprintf(err, elen, "cannot write %s: %s", keep, strerror(errno));
        rc = -1;
    }
    free(keep);
    free(drop);
    return rc;
}

/* A failed job's record: what failed, for --merge to say. */
static int put_failure(const char *dir, size_t n, const char *msg, char *err,
                       size_t elen)
{
    struct text t = {0};
    int rc;

    text_add(&t, FAILED_MAGIC "\nplan %016" PRIx64 "\njob %zu\n", plan_id, n);
    text_str(&t, "error", msg);
    rc = put_result(dir, n, "failed", &t, err, elen);
    free(t.s);
    return rc;
}

/* --run-job: an error exit once the job is known leaves its record, so
 * that --merge says the job failed (and why) rather than that it never
 * ran.  (A job killed by a signal leaves none: the merge lists it as
 * missing, "or killed".) */
static void job_died(void)
{
    static int once;
    char err[PATH_MAX + 128];

    if (!once++ && put_failure(run_dir_early, o.run_job, cli_last_error(), err,
                               sizeof(err)))
        fprintf(stderr, NAME ": %s\n", err);
}

int plan_save_job(const char *dir, size_t n, double seconds)
{
    const struct work *w = &works[n];
    const struct unit *u = &units[w->unit];
    struct text t = {0};
    char *done = job_path(dir, n, "rows"), *failed = job_path(dir, n, "failed");
    char what[1400], err[PATH_MAX + 128], msg[1400];
    double peak, bound;
    int status = 0;

    plan_check(dir);
    for (size_t i = w->first; i < w->first + w->n; i++)
        if (rows[i].rc && !status) {
            status = rows[i].rc;
            snprintf(msg, sizeof(msg), "row %s: %s",
                     rows[i].label[0] ? rows[i].label : "-", rows[i].err);
        }
    text_add(&t, ROWS_MAGIC "\nplan %016" PRIx64 "\njob %zu\nrows %zu %zu\n",
             plan_id, n, w->first, w->n);
    for (size_t i = w->first; i < w->first + w->n; i++)
        write_row(&t, i);
    if (w->curve) {
        text_add(&t, "curve %" PRIu64 " %" PRIu64 " %zu", u->curve_accesses,
                 u->curve_distinct, o.nmrc);
        for (size_t i = 0; i < o.nmrc; i++)
            text_add(&t, " %" PRIu64, u->curve_hits[i]);
        text_add(&t, "\n");
    }
    /* the last line checks every byte before it */
    text_add(&t, "end %zu %016" PRIx64 "\n", n, fnv1a(t.s, t.len));
    if (status ? put_failure(dir, n, msg, err, sizeof(err))
               : put_result(dir, n, "rows", &t, err, sizeof(err)))
        die(1, "%s", err);
    job_words(w, what, sizeof(what));
    peak = peak_mib();
    bound = (double)job_memory(w) / 1048576.0;
    fprintf(stderr,
            NAME ": job %zu of %zu (%s): %s in %.1f s, %" PRIu64
                 " accesses, peak %.0f MiB of %.0f planned; %s\n",
            n, nworks, what, status ? "failed" : "done", seconds,
            rows[w->first].st.accesses, peak, bound, status ? failed : done);
    if (peak > bound)
        fprintf(stderr,
                NAME ": job %zu took more memory than the plan's bound: "
                     "give slurm-sweep.sh --mem %.0f (or more)\n",
                n, peak * 1.25);
    free(t.s);
    free(done);
    free(failed);
    return status;
}

/* ---- --merge ------------------------------------------------------------ */

/* Job n without rows: -1 when nothing says it ran; 1 when it failed, what
 * failed in why[]. */
static int load_failure(const char *dir, size_t n, char *why, size_t wlen)
{
    char *p = job_path(dir, n, "failed"), *text, msg[1024] = "";
    struct cursor c;
    uint64_t id = 0, job = 0;
    size_t len;

    if (!(text = read_all(p, &len))) {
        int e = errno;
        if (e != ENOENT)
            snprintf(why, wlen, "failed: cannot read its record %s: %s", p,
                     read_why);
        free(p);
        return e == ENOENT ? -1 : 1;
    }
    c = (struct cursor){.p = text, .end = text + len, .path = p, .line = 1};
    if (cur_magic(&c, FAILED_MAGIC) && cur_key(&c, "plan") &&
        cur_hex(&c, &id) && cur_eol(&c) && cur_key(&c, "job") &&
        cur_u64(&c, &job) && cur_eol(&c))
        cur_str(&c, "error", msg, sizeof(msg));
    if (id != plan_id || job != n)
        snprintf(why, wlen, "failed, by %s (not this plan's record)", p);
    else
        snprintf(why, wlen, "failed: %s", msg[0] ? msg : "(no message)");
    free(text);
    free(p);
    return 1;
}

/* Job n's rows from DIR/results/job-n.rows into rows[]: 0; -1 when there is
 * none; 1 when it failed or is not whole (why in why[]). */
static int load_job(const char *dir, size_t n, char *why, size_t wlen)
{
    const struct work *w = &works[n];
    struct unit *u = &units[w->unit];
    char *p = job_path(dir, n, "rows"), *text;
    struct cursor c;
    uint64_t id, job, first, cnt, acc, dist, nm;
    size_t len;
    int rc = 1;

    if (!(text = read_all(p, &len))) {
        if (errno == ENOENT)
            rc = load_failure(dir, n, why, wlen);
        else
            snprintf(why, wlen, "%s: %s", p, read_why);
        free(p);
        return rc;
    }
    c = (struct cursor){.p = text, .end = text + len, .path = p, .line = 1};
    if (!cur_magic(&c, ROWS_MAGIC)) {
        cur_fail(&c, "not a job's rows");
        goto out;
    }
    if (!cur_key(&c, "plan") || !cur_hex(&c, &id))
        goto out;
    if (id != plan_id) {
        cur_fail(&c, "rows of another plan, not this one");
        goto out;
    }
    if (!cur_eol(&c))
        goto out;
    if (!cur_key(&c, "job") || !cur_u64(&c, &job) || !cur_eol(&c) ||
        !cur_key(&c, "rows") || !cur_u64(&c, &first) || !cur_u64(&c, &cnt) ||
        !cur_eol(&c))
        goto out;
    if (job != n || first != w->first || cnt != w->n) {
        cur_fail(&c, "not the rows of this job");
        goto out;
    }
    for (size_t i = w->first; i < w->first + w->n; i++)
        if (!read_row(&c, i))
            goto out;
    if (w->curve) {
        if (!cur_key(&c, "curve") || !cur_u64(&c, &acc) ||
            !cur_u64(&c, &dist) || !cur_u64(&c, &nm))
            goto out;
        if (nm != o.nmrc) {
            cur_fail(&c, "a curve of other --mrc sizes");
            goto out;
        }
        for (size_t i = 0; i < o.nmrc; i++)
            if (!cur_u64(&c, &u->curve_hits[i]))
                goto out;
        if (!cur_eol(&c))
            goto out;
        u->have_curve = true;
        u->curve_accesses = acc;
        u->curve_distinct = dist;
    }
    {
        const char *end_at = c.p;
        uint64_t sum;
        if (!cur_key(&c, "end") || !cur_u64(&c, &job) || job != n ||
            !cur_hex(&c, &sum) || !cur_eol(&c) || c.p != c.end) {
            cur_fail(&c, "not whole (no 'end' where it should be)");
            goto out;
        }
        if (sum != fnv1a(text, (size_t)(end_at - text))) {
            cur_fail(&c, "changed since it was written (its checksum differs)");
            goto out;
        }
    }
    rc = 0;
out:
    if (rc)
        snprintf(why, wlen, "%s", c.err[0] ? c.err : "unreadable");
    free(text);
    free(p);
    return rc;
}

/* Job numbers as ranges: "2, 5-9, 12" (cut with "..." past out[n]). */
static void ranges(const size_t *v, size_t k, char *out, size_t n)
{
    size_t at = 0;

    out[0] = '\0';
    for (size_t i = 0; i < k && at + 32 < n;) {
        size_t j = i;
        while (j + 1 < k && v[j + 1] == v[j] + 1)
            j++;
        if (j > i)
            at += (size_t)snprintf(out + at, n - at, "%s%zu-%zu", i ? ", " : "",
                                   v[i], v[j]);
        else
            at += (size_t)snprintf(out + at, n - at, "%s%zu", i ? ", " : "",
                                   v[i]);
        i = j + 1;
        if (i < k && at + 32 >= n)
            snprintf(out + at, n - at, ", ...");
    }
}

void plan_load_all(const char *dir)
{
    size_t *missing = calloc(nworks ? nworks : 1, sizeof(size_t)),
           *failed = calloc(nworks ? nworks : 1, sizeof(size_t)), nm = 0,
           nf = 0;
    char why[512], list[1024];

    if (!missing || !failed)
        die(1, "%s", "out of memory");
    plan_check(dir);
    for (size_t n = 0; n < nworks; n++) {
        int rc = load_job(dir, n, why, sizeof(why));
        if (rc < 0)
            missing[nm++] = n;
        else if (rc > 0) {
            if (nf < 5)
                fprintf(stderr, NAME ": job %zu: %s\n", n, why);
            else if (nf == 5)
                fprintf(stderr, NAME ": (the other jobs' reasons: --merge "
                                     "after those are done, or their logs)\n");
            failed[nf++] = n;
        }
    }
    if (nm || nf) {
        fprintf(stderr, NAME ": %s: %zu of %zu jobs not done", dir, nm + nf,
                nworks);
        if (nm) {
            ranges(missing, nm, list, sizeof(list));
            fprintf(stderr,
                    "; missing (never ran, still running, or killed): %s",
                    list);
        }
        if (nf) {
            ranges(failed, nf, list, sizeof(list));
            fprintf(stderr, "; failed or unreadable: %s", list);
        }
        fprintf(stderr, "\n(run each with " NAME " --run-job %s N)\n", dir);
        exit(1);
    }
    free(missing);
    free(failed);
}
