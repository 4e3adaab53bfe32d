/*
 * sweep_plan.c - zcache-sweep's commands over the library's plans
 * (zcache_sim.h: zc_sweep_plan_*).
 *
 *   zcache-sweep --plan DIR ARGS...   writes the plan into DIR
 *   zcache-sweep --run-job DIR N      runs job N, writes its rows into DIR
 *   zcache-sweep --merge DIR          reads every job's rows, reports
 *
 * The plan keeps the arguments, not the rows: --run-job and --merge read
 * them back and make the same sweep again (the library checks that it is
 * still the one planned).  What is here is the command line's: which
 * arguments a plan keeps (a relative --plot made absolute; a job never
 * plots), the few options of --run-job and --merge, the directory the
 * plan was made in, the job's summary line, and the merge's list of jobs
 * not done.  scripts/slurm-sweep.sh is a thin submitter over these.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sweep.h"

/* ---- commands to paste ------------------------------------------------- */

/* s as one word of a POSIX shell's command line, in a new allocation: as
 * it is when every byte is one the shell takes literally, else in single
 * quotes (inside which only ' is special: it becomes '\''), so that a
 * printed command pasted into a shell gets s back byte for byte, spaces,
 * quotes, $, backslashes and line breaks included. */
static char *shell_word(const char *s)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789-_./=:,+@%";
    size_t n = strlen(s), quotes = 0;
    char *w, *o;

    if (n && strspn(s, plain) == n) {
        if (!(w = strdup(s)))
            die(1, "%s", "out of memory");
        return w;
    }
    for (const char *p = s; *p; p++)
        quotes += *p == '\'';
    if (!(w = o = malloc(n + 3 * quotes + 3)))
        die(1, "%s", "out of memory");
    *o++ = '\'';
    for (const char *p = s; *p; p++)
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    *o++ = '\'';
    *o = '\0';
    return w;
}

/* The plan directory as the first word after an option: a relative path
 * that starts with '-' gets "./", or the command would read it as an
 * option (slurm-sweep.sh does; getopt-style parsers would). */
static char *dir_word(const char *dir)
{
    char *w, *dotted;

    if (dir[0] != '-')
        return shell_word(dir);
    if (!(dotted = malloc(strlen(dir) + 3)))
        die(1, "%s", "out of memory");
    strcpy(dotted, "./");
    strcat(dotted, dir);
    w = shell_word(dotted);
    free(dotted);
    return w;
}

/* Why scripts/slurm-sweep.sh refuses to submit the plan at dir, or NULL.
 * It writes the plan's absolute path into sbatch's --output file names,
 * where '%' starts a pattern (%A, %a) and '\' turns patterns off, and
 * into the tasks' job scripts; rather than escape them, it refuses any
 * path (as given, and as resolved) with a control character, '%' or '\'.
 * Its rule is plain_path(); this is the same rule, so that --plan never
 * prints a command the script refuses. */
static const char *slurm_refusal(const char *dir)
{
    char *real = realpath(dir, NULL);
    const char *paths[2] = {dir, real ? real : dir}, *why = NULL;

    for (int i = 0; i < 2 && !why; i++)
        for (const unsigned char *p = (const unsigned char *)paths[i];
             *p && !why; p++)
            if (*p < 0x20 || *p == 0x7f || *p == '%' || *p == '\\')
                why = "slurm-sweep.sh cannot take this plan: its path holds "
                      "a control character, '%' or '\\', which sbatch's "
                      "--output file names and the job scripts cannot carry "
                      "(plan into a directory named without them)";
    free(real);
    return why;
}

/* ---- --plan ------------------------------------------------------------- */

/* The adaptive rows' CPU prices the plan measured, said: the plan keeps
 * them, and every job weighs them. */
static void measured_now(const zc_sweep *sw)
{
    size_t nrows, n = 0;
    const zc_sweep_row *r = zc_sweep_rows(sw, &nrows);
    uint64_t lo = UINT64_MAX, hi = 0, glo = UINT64_MAX, ghi = 0;

    for (size_t i = 0; i < nrows; i++)
        if (r[i].adaptive && r[i].prices_measured) {
            n++;
            lo = r[i].put_ns < lo ? r[i].put_ns : lo;
            hi = r[i].put_ns > hi ? r[i].put_ns : hi;
            glo = r[i].get_ns < glo ? r[i].get_ns : glo;
            ghi = r[i].get_ns > ghi ? r[i].get_ns : ghi;
        }
    if (!n)
        return;
    printf("prices:     the adaptive rows' CPU, measured now and kept in the "
           "plan for every job:\n            put %.2f",
           (double)lo / 1e3);
    if (hi != lo)
        printf(" to %.2f", (double)hi / 1e3);
    printf(" us, get %.2f", (double)glo / 1e3);
    if (ghi != glo)
        printf(" to %.2f", (double)ghi / 1e3);
    printf(" us (manifest.json: prices; --cpu-price fixes them)\n");
}

void plan_write(zc_sweep *sw, const struct sweep_args *a, int argc, char **argv)
{
    char cwd[PATH_MAX];
    const char **args = calloc((size_t)argc, sizeof(*args));
    char **own = calloc((size_t)argc, sizeof(*own));
    size_t n = 0, njobs;
    const zc_sweep_job *jobs = zc_sweep_jobs(sw, &njobs);
    uint64_t mem_max = 0, id;
    size_t ntraces, nrows;
    struct stat sb;
    const char *no_slurm;
    char *word;
    int rc;

    if (!args || !own)
        die(1, "%s", "out of memory");
    if (!getcwd(cwd, sizeof(cwd)))
        die(1, "cannot tell the working directory: %s", strerror(errno));
    /* what every job reads again must be there to read again */
    if (a->manifest && (stat(a->manifest, &sb) || !S_ISREG(sb.st_mode)))
        die(2,
            "--plan: --manifest %s is no regular file: every job reads it "
            "again (write it to a file)",
            a->manifest);
    /* the arguments but --plan DIR; a relative --plot prefix made
     * absolute, so that a merge run anywhere writes the same files */
    for (int i = 1; i < argc; i++) {
        if (i == a->plan_argi || i == a->plan_argi + 1)
            continue;
        if (i >= 2 && !strcmp(argv[i - 1], "--plot") && argv[i][0] != '/') {
            size_t len = strlen(cwd) + strlen(argv[i]) + 2;
            if (!(own[i] = malloc(len)))
                die(1, "%s", "out of memory");
            snprintf(own[i], len, "%s/%s", cwd, argv[i]);
            args[n++] = own[i];
        } else {
            args[n++] = argv[i];
        }
    }
    if ((rc = zc_sweep_plan_write(sw, a->plan_dir, args, n, cwd, &id)))
        die(cli_status(rc), "%s", zc_sweep_error(sw));
    for (size_t w = 0; w < njobs; w++)
        if (jobs[w].memory_bytes > mem_max)
            mem_max = jobs[w].memory_bytes;
    zc_sweep_traces(sw, &ntraces);
    zc_sweep_rows(sw, &nrows);
    /* commands to paste: the directory as one shell word, never read as
     * an option; no Slurm command the script would refuse */
    word = dir_word(a->plan_dir);
    no_slurm = slurm_refusal(a->plan_dir);
    printf("plan %s: %zu job%s (%zu trace%s, %zu row%s), each up to %" PRIu64
           " MiB of memory\n"
           "run each:   " NAME " --run-job %s N    (N = 0 .. %zu)\n"
           "then:       " NAME " --merge %s\n",
           word, njobs, njobs != 1 ? "s" : "", ntraces, ntraces != 1 ? "s" : "",
           nrows, nrows != 1 ? "s" : "", (mem_max + (1u << 20) - 1) >> 20, word,
           njobs - 1, word);
    if (no_slurm)
        printf("on Slurm:   none: %s\n", no_slurm);
    else
        printf("on Slurm:   scripts/slurm-sweep.sh %s\n", word);
    free(word);
    measured_now(sw);
    for (int i = 0; i < argc; i++)
        free(own[i]);
    free(own);
    free(args);
}

/* ---- --run-job and --merge: the plan's arguments ------------------------ */

/* --run-job's plan, once it is known: an error exit records the job as
 * failed, so that --merge says it failed (and why) rather than that it
 * never ran.  (A job killed by a signal leaves none: the merge lists it as
 * missing, "or killed".) */
static struct {
    const char *dir;
    uint64_t plan_id;
    size_t job;
} dying;

static void job_died(void)
{
    static int once;
    char err[PATH_MAX + 128];

    if (!once++ &&
        zc_sweep_plan_save_failure(dying.dir, dying.plan_id, dying.job,
                                   cli_last_error(), err, sizeof(err)))
        fprintf(stderr, NAME ": %s\n", err);
}

/* The few options that belong to this run, not to the plan: ov[0]
 * --output, ov[1] --plot (made absolute: *owned), ov[2] --jobs. */
static void run_options(int argc, char **av, bool merge, const char **ov,
                        void **owned)
{
    const char *mode = av[1];

    for (int i = merge ? 3 : 4; i < argc; i += 2) {
        const char *k = av[i], *v = i + 1 < argc ? av[i + 1] : NULL;
        if (k[0] != '-')
            die(2, "%s %s: '%s': one plan at a time%s", mode, av[2], k,
                merge ? "" : ", one job at a time");
        if (!v)
            die(2, "%s %s: option %s needs a value", mode, av[2], k);
        if (merge && !strcmp(k, "--output"))
            ov[0] = v;
        else if (merge && !strcmp(k, "--plot"))
            ov[1] = v;
        else if (!merge && !strcmp(k, "--jobs"))
            ov[2] = v;
        else
            die(2,
                "%s: '%s': the plan holds the sweep's options (%s takes "
                "only %s)",
                mode, k, mode, merge ? "--output and --plot" : "--jobs");
    }
    /* --plot relative to where the merge is run, not the plan's place */
    if (ov[1] && ov[1][0] != '/') {
        char cwd[PATH_MAX], *abs;
        size_t l;
        if (!getcwd(cwd, sizeof(cwd)))
            die(1, "cannot tell the working directory: %s", strerror(errno));
        l = strlen(cwd) + strlen(ov[1]) + 2;
        if (!(abs = malloc(l)))
            die(1, "%s", "out of memory");
        snprintf(abs, l, "%s/%s", cwd, ov[1]);
        ov[1] = abs;
        *owned = abs;
    }
}

/* One CPU-bound job a task: --run-job's --jobs, else the threads Slurm
 * gave it, else the plan's --jobs, else one.  --jobs keeps its own check
 * (parse()'s); Slurm's count is checked here, where it is read, and named
 * as what it is: a task of 128 CPUs is common, and runs 64 threads, not
 * none.  (Set but empty is taken as unset.) */
static const char *job_threads(char **nav, size_t n, const char *given)
{
    static char arg[24];
    const char *s = getenv("SLURM_CPUS_PER_TASK");
    bool planned = false;

    for (size_t i = 1; i + 1 < n; i++)
        planned |= !strcmp(nav[i], "--jobs");
    if (!given && !(s && *s) && planned)
        return NULL;
    if (given || !(s && *s)) {
        snprintf(arg, sizeof(arg), "%s", given ? given : "1");
        return arg;
    }
    /* digits only, not all zeros; any length (beyond 64 is 64) */
    if (strspn(s, "0123456789") != strlen(s) || !strpbrk(s, "123456789"))
        die(2,
            "SLURM_CPUS_PER_TASK=%s: want a whole number of CPUs above 0 "
            "(or give --run-job ... --jobs N)",
            s);
    const char *digits = s + strspn(s, "0");
    if (strlen(digits) > 2 || atoi(digits) > MAX_THREADS) {
        fprintf(stderr,
                NAME ": SLURM_CPUS_PER_TASK=%.20s%s: %d worker threads, the "
                     "most a sweep takes\n",
                s, strlen(s) > 20 ? "..." : "", MAX_THREADS);
        snprintf(arg, sizeof(arg), "%d", MAX_THREADS);
    } else {
        snprintf(arg, sizeof(arg), "%s", digits);
    }
    return arg;
}

void plan_command(int *argc, char ***argv, struct sweep_args *a)
{
    char **av = *argv, **args, **nav, *dir, err[2048];
    const char *mode = av[1], *cwd, *ov[3] = {NULL, NULL, NULL}, *jobs;
    bool merge = !strcmp(mode, "--merge");
    size_t nargs, njobs, n = 0;
    int rc;

    if (*argc < (merge ? 3 : 4))
        die(2, "usage: " NAME " %s",
            merge ? "--merge DIR [--output FORMAT] [--plot PREFIX]"
                  : "--run-job DIR N [--jobs N]");
    if (!(dir = realpath(av[2], NULL)))
        die(2, "%s %s: %s", mode, av[2], strerror(errno));
    if (!merge) {
        char *e;
        errno = 0;
        unsigned long long j = strtoull(av[3], &e, 10);
        if (av[3][0] < '0' || av[3][0] > '9' || *e || errno)
            die(2, "--run-job %s %s: want a job number", av[2], av[3]);
        a->run_job = (size_t)j;
    }
    run_options(*argc, av, merge, ov, &a->plan_mem[1]);
    a->plan_mem[0] = dir;
    if ((rc = zc_sweep_plan_read(dir, &args, &nargs, &cwd, &njobs, &a->plan_id,
                                 err, sizeof(err))))
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s", err);
    a->plan_jobs = njobs;
    if (!merge) {
        if (a->run_job >= njobs)
            die(2, "--run-job %s %zu: the plan has jobs 0 to %zu", av[2],
                a->run_job, njobs - 1);
        /* from here on an error exit is the job's failure, kept */
        dying.dir = dir;
        dying.plan_id = a->plan_id;
        dying.job = a->run_job;
        cli_init(NAME, job_died);
    }
    a->plan_mem[2] = args;
    if (!(nav = calloc(nargs + 8, sizeof(*nav))))
        die(1, "%s", "out of memory");
    a->plan_mem[3] = nav;
    nav[n++] = av[0];
    for (size_t i = 0; i < nargs; i++) {
        /* a job never plots: a --plot whose folder is gone is no matter */
        if (!merge && !strcmp(args[i], "--plot") && i + 1 < nargs) {
            i++;
            continue;
        }
        nav[n++] = args[i];
    }
    if (ov[0]) {
        nav[n++] = "--output";
        nav[n++] = (char *)ov[0];
    }
    if (ov[1]) {
        nav[n++] = "--plot";
        nav[n++] = (char *)ov[1];
    }
    if (!merge && (jobs = job_threads(nav, n, ov[2]))) {
        nav[n++] = "--jobs";
        nav[n++] = (char *)jobs;
    }
    if (chdir(cwd))
        die(2,
            "%s: the plan was made in %s, which this machine cannot enter "
            "(%s): plans need a file system shared by every node",
            av[2], cwd, strerror(errno));
    if (merge)
        a->merge_dir = dir;
    else
        a->run_dir = dir;
    *argc = (int)n;
    *argv = nav;
}

/* ---- a job -------------------------------------------------------------- */

void plan_job_check(zc_sweep *sw, const struct sweep_args *a)
{
    int rc = zc_sweep_plan_check(sw, a->run_dir, a->plan_id);

    if (rc)
        die(cli_status(rc), "%s", zc_sweep_error(sw));
}

/* What a job is, in words: its trace, its page cache or adaptive row. */
static void job_words(const zc_sweep *sw, const zc_sweep_job *j, char *out,
                      size_t n)
{
    const zc_sweep_row *r = &zc_sweep_rows(sw, NULL)[j->first_row];
    const char *name = zc_sweep_traces(sw, NULL)[j->trace].name;

    if (j->kind == ZC_SWEEP_OPS)
        snprintf(out, n, "%s, %zu row%s", name, j->nrows,
                 j->nrows > 1 ? "s" : "");
    else if (j->kind == ZC_SWEEP_ADAPTIVE)
        snprintf(out, n, "%s, %s", name, r->label);
    else
        snprintf(out, n, "%s, page cache %" PRIu64 " pages, %zu row%s", name,
                 r->page_cache_pages, j->nrows, j->nrows > 1 ? "s" : "");
}

int plan_job_save(zc_sweep *sw, const struct sweep_args *a, double seconds)
{
    const zc_sweep_job *j = &zc_sweep_jobs(sw, NULL)[0]; /* (the job's) */
    const zc_sweep_row *rows = zc_sweep_rows(sw, NULL);
    char what[1400];
    struct rusage ru;
    double peak, bound = (double)j->memory_bytes / 1048576.0;
    int rc, status = 0;

    plan_job_check(sw, a);
    for (size_t i = j->first_row; i < j->first_row + j->nrows && !status; i++)
        status = rows[i].rc ? cli_status(rows[i].rc) : 0;
    if ((rc = zc_sweep_plan_save_job(sw, a->run_dir, a->run_job)))
        die(1, "%s", zc_sweep_error(sw));
    job_words(sw, j, what, sizeof(what));
    peak = getrusage(RUSAGE_SELF, &ru) ? 0 : (double)ru.ru_maxrss / 1024.0;
    fprintf(stderr,
            NAME ": job %zu of %zu (%s): %s in %.1f s, %" PRIu64
                 " accesses, peak %.0f MiB of %.0f planned; %s/results/"
                 "job-%zu.%s\n",
            a->run_job, a->plan_jobs, what, status ? "failed" : "done", seconds,
            rows[j->first_row].st.accesses, peak, bound, a->run_dir, a->run_job,
            status ? "failed" : "rows");
    if (peak > bound)
        fprintf(stderr,
                NAME ": job %zu took more memory than the plan's bound: "
                     "give slurm-sweep.sh --mem %.0f (or more)\n",
                a->run_job, peak * 1.25);
    return status;
}

/* ---- --merge ------------------------------------------------------------ */

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

void plan_merge(zc_sweep *sw, const struct sweep_args *a)
{
    size_t njobs, nm = 0, nf = 0;
    char list[1024], *word;
    size_t *missing, *failed;
    int rc;

    zc_sweep_jobs(sw, &njobs);
    missing = calloc(njobs ? njobs : 1, sizeof(size_t));
    failed = calloc(njobs ? njobs : 1, sizeof(size_t));
    if (!missing || !failed)
        die(1, "%s", "out of memory");
    if ((rc = zc_sweep_plan_check(sw, a->merge_dir, a->plan_id)))
        die(cli_status(rc), "%s", zc_sweep_error(sw));
    for (size_t n = 0; n < njobs; n++) {
        rc = zc_sweep_plan_load_job(sw, a->merge_dir, n);
        if (rc == -ZC_ENOMEM)
            die(1, "%s", "out of memory");
        if (rc > 0)
            missing[nm++] = n;
        else if (rc < 0) {
            if (nf < 5)
                fprintf(stderr, NAME ": job %zu: %s\n", n, zc_sweep_error(sw));
            else if (nf == 5)
                fprintf(stderr, NAME ": (the other jobs' reasons: --merge "
                                     "after those are done, or their logs)\n");
            failed[nf++] = n;
        }
    }
    if (nm || nf) {
        fprintf(stderr, NAME ": %s: %zu of %zu jobs not done", a->merge_dir,
                nm + nf, njobs);
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
        word = shell_word(a->merge_dir);
        fprintf(stderr, "\n(run each with " NAME " --run-job %s N)\n", word);
        free(word);
        exit(1);
    }
    free(missing);
    free(failed);
}
