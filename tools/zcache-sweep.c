/*
 * zcache-sweep - many traces, many configurations, one table.
 *
 *   zcache-sweep [OPTIONS] TRACE...
 *
 * The cross product of --page-cache sizes, --capacity values and every
 * --set KEY=V1,V2,... is run; or, with --memory M --share S1,S2,..., a
 * fixed memory M is split: the zcache gets S% of it (its capacity) and
 * the page cache the rest, S = 0 being the baseline without a zcache.
 *
 * The library's sweep (zc_sweep_*, zcache_sim.h) makes the rows and runs
 * them: for each page-cache size the model runs once and a fan-out plays
 * its ops into every configuration, each distinct content compressed
 * once, so each row is exactly what `zcache-replay --page-cache P
 * --zcache SPEC` gives (tests/sweep_matches_replay.sh checks it).  This
 * program reads the command line, collects the traces (files,
 * directories, --manifest), shows progress, and reports
 * (sweep_report.c); sweep_plan.c cuts a sweep into jobs for many
 * machines.
 *
 * Output: an aligned table (the memory-split mode marks the share with the
 * fewest disk reads), or CSV / JSON with every field named.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "plot.h"
#include "sweep.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " NAME " [OPTIONS] TRACE...\n"
            "       " NAME " --plan DIR [OPTIONS] TRACE...   then:\n"
            "       " NAME " --run-job DIR N [--jobs N]      for each "
            "job N, anywhere\n"
            "       " NAME " --merge DIR [--output FORMAT] [--plot "
            "PREFIX]\n"
            "\n"
            "  TRACE               a trace file, or a directory (its "
            "traces, by name); each\n"
            "                      trace has rows of its own (a trace "
            "column in every output)\n"
            "  --manifest FILE     more traces, one a line: PATH "
            "[format=NAME] [content=SPEC]\n"
            "                      (relative paths from FILE's "
            "directory; '#' comments)\n"
            "  --join              play all the traces one after the "
            "other as one stream\n"
            "  --page-cache LIST   page-cache sizes (pages, or bytes with "
            "K/M/G), e.g. 1024,4096\n"
            "                      (every LIST: values separated by "
            "commas, or FROM:TO:STEP\n"
            "                      ranges such as 0:4M:1M; at most 64 "
            "values)\n"
            "  --page-cache-model NAME, --read-ahead-kb N   as zcache-replay\n"
            "  --capacity LIST     zcache capacities, e.g. 0,1M,4M (0: no "
            "zcache)\n"
            "  --zcache SPEC       the other zcache settings, e.g. "
            "compressor=lzo\n"
            "  --set KEY=V1,V2     vary any zc_config key (repeatable: "
            "the cross product)\n"
            "  --memory M --share S1,S2,... [--adaptive]\n"
            "                      split M: the zcache gets S%% of it, the "
            "page cache the rest;\n"
            "                      --adaptive adds a row where a "
            "controller moves the split\n"
            "                      as it runs (zcache-replay --help: "
            "--adapt SPEC), its split\n"
            "                      over time in PREFIX-adaptive.csv with "
            "--plot;\n"
            "                      --adaptive=NAME,... a row per "
            "controller: model (the default),\n"
            "                      fixed (20%%, zswap's pool limit), arc "
            "(an ARC-style balancer);\n"
            "                      with --plot, PREFIX-adaptive-N.* each "
            "and PREFIX-adaptive.*\n"
            "                      all of them against the best static "
            "split\n"
            "  --format, --page-size, --content   as zcache-replay (the "
            "content's default:\n"
            "                      pack:PACK when the trace's header "
            "names a pack, else synth)\n"
            "  --jobs N            worker threads (default: the cores)\n"
            "  --memo SIZE         memory for compressing each distinct "
            "content once\n"
            "                      (default 1G; 0: every configuration "
            "compresses)\n"
            "  --cpu-price put=T,get=T\n"
            "                      fixed costs of a compression and a "
            "decompression for\n"
            "                      cpu_ms (and the --adaptive "
            "controller's, unless --adapt\n"
            "                      sets them); default: the thread CPU "
            "time measured\n"
            "                      (the controllers': once, before the "
            "rows run; a plan's\n"
            "                      when it is made, kept for its jobs)\n"
            "  --disk-latency T    a disk read's cost: 100us, 8ms, ... or "
            "hdd (8ms),\n"
            "                      ssd (100us, the default), nvme (20us)\n"
            "  --output FORMAT     text (default), csv or json\n"
            "  --mrc LIST          also print the page cache's exact LRU "
            "hits at these\n"
            "                      sizes (one pass: stack distances)\n"
            "  --plot PREFIX       write PREFIX.csv, PREFIX.dat, PREFIX.gp "
            "and, when gnuplot\n"
            "                      is installed, PREFIX.png and "
            "PREFIX.svg\n"
            "  --help, --version\n"
            "\n"
            "Many machines (README: Many traces, many machines):\n"
            "  --plan DIR          write the sweep into DIR as independent "
            "jobs (one trace at\n"
            "                      one page-cache size; an adaptive row; "
            "an op stream) and\n"
            "                      DIR/manifest.json (jobs, memory); "
            "nothing runs\n"
            "  --run-job DIR N     run job N of DIR's plan; its rows go to "
            "DIR/results/\n"
            "                      atomically (threads: --jobs, else "
            "$SLURM_CPUS_PER_TASK to 64, else 1)\n"
            "  --merge DIR         every job's rows: the outputs a "
            "one-machine run writes;\n"
            "                      missing or failed jobs are listed by "
            "number (exit 1)\n"
            "  scripts/slurm-sweep.sh DIR submits a plan to Slurm as a job "
            "array.\n"
            "\n"
            "Cost model, per row: cpu = compressing stored pages + "
            "compressing rejected\n"
            "ones (wasted) + decompressing, as measured; saved = zcache "
            "hits x disk\n"
            "latency - cpu.  The zcache pays where saved > 0.\n");
    fprintf(f,
            "\nRows: one per page-cache size, capacity and --set "
            "combination (one per\n--share and --set combination); at "
            "most %d, a larger sweep is refused.\n",
            ZC_SWEEP_ROWS_MAX);
    fprintf(f, "\nBack-ends to --set (e.g. --set allocator=zsmalloc,zbud "
               "--set policy=lru,gdsf):\n");
    static const char *const kinds[] = {"compressor", "allocator", "policy"};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; zc_backend_name((zc_backend_kind)k, i); i++)
            fprintf(f, "  %-10s %-10s %s\n", kinds[k],
                    zc_backend_name((zc_backend_kind)k, i),
                    zc_backend_doc((zc_backend_kind)k, i));
    fprintf(f, "\nKeys of --zcache and --set (zc_config):\n");
    for (size_t i = 0; zc_config_key_name(i); i++)
        fprintf(f, "  %-19s %s\n", zc_config_key_name(i), zc_config_key_doc(i));
}

/* A size (--memo): bytes with K/M/G. */
static uint64_t size_arg(const char *s, const char *what)
{
    uint64_t v;

    if (zc_parse_size(s, &v) < 0)
        die(2, "%s: want a number, or bytes with K/M/G", what);
    return v;
}

/* A disk read's cost (--disk-latency): the controller's parser
 * (zc_adapt_options' disk key) is the one that reads times. */
static uint64_t latency(const char *s)
{
    zc_adapt_options p = {0};
    char spec[128], err[256];

    if (snprintf(spec, sizeof(spec), "disk=%s", s) >= (int)sizeof(spec) ||
        zc_adapt_options_parse(&p, spec, err, sizeof(err)))
        die(2,
            "--disk-latency %s: want a time above 0 up to 10000s, e.g. "
            "100us, 8ms, or hdd, ssd, nvme",
            s);
    return p.disk_ns;
}

/* --adaptive=NAME,...: one adaptive row per controller (and --set
 * combination), each named once; the names are the controller key's. */
static void parse_controllers(struct sweep_args *a, const char *list)
{
    const char *p = list;

    a->so.ncontrollers = 0;
    for (;;) {
        size_t n = strcspn(p, ",");
        zc_adapt_options t = {0};
        char spec[64];
        if (n > 32 ||
            (snprintf(spec, sizeof(spec), "controller=%.*s", (int)n, p),
             zc_adapt_options_parse(&t, spec, NULL, 0)))
            die(2, "--adaptive=%s: want controllers among model, fixed, arc",
                list);
        for (size_t i = 0; i < a->so.ncontrollers; i++)
            if (a->ctl[i] == t.controller)
                die(2, "--adaptive=%s: %s named twice", list,
                    zc_adapt_controller_name(t.controller));
        if (a->so.ncontrollers == 3)
            die(2, "--adaptive=%s: at most 3 controllers", list);
        a->ctl[a->so.ncontrollers++] = t.controller;
        if (!p[n])
            return;
        p += n + 1;
    }
}

/* --cpu-price put=T,get=T: the controller's own keys and parser. */
static void cpu_price(struct sweep_args *a, const char *v)
{
    zc_adapt_options p = {0};
    char err[256];

    if (zc_adapt_options_parse(&p, v, err, sizeof(err)) || !p.put_ns ||
        !p.get_ns || p.memory_bytes || p.disk_ns || p.steps || p.epoch ||
        p.decay_percent || p.probe_every || p.start_percent || p.ghost_factor)
        die(2,
            "--cpu-price %s: want put=T,get=T, both above 0 (e.g. "
            "put=6us,get=2us)",
            v);
    a->so.prices.put_ns = p.put_ns;
    a->so.prices.get_ns = p.get_ns;
}

/* An option with a value: false if a is not one. */
static bool option(struct sweep_args *a, const char *k, const char *v)
{
    zc_sweep_options *o = &a->so;
    char err[256];

    if (!strcmp(k, "--page-cache"))
        o->page_cache = v;
    else if (!strcmp(k, "--page-cache-model")) {
        if (!cli_model_known(v))
            die(2,
                "--page-cache-model %s: no such model (zcache-replay "
                "--help lists them)",
                v);
        o->model = v;
    } else if (!strcmp(k, "--read-ahead-kb")) {
        if (cli_read_ahead(v, &o->read_ahead_kb))
            die(2, "--read-ahead-kb %s: want KiB from 0 to 4194304", v);
        o->read_ahead_set = true;
    } else if (!strcmp(k, "--capacity"))
        o->capacity = v;
    else if (!strcmp(k, "--zcache"))
        o->zcache = v;
    else if (!strcmp(k, "--manifest")) {
        if (a->manifest)
            die(2, "%s", "--manifest given twice (list every trace in one)");
        a->manifest = v;
    } else if (!strcmp(k, "--memory"))
        o->memory = v;
    else if (!strcmp(k, "--adapt")) {
        o->adaptive = true;
        if (zc_adapt_options_parse(&o->adapt, v, err, sizeof(err)))
            die(2, "--adapt: %s", err);
        if (o->adapt.memory_bytes)
            die(2, "--adapt %s: the memory is --memory's", v);
    } else if (!strcmp(k, "--share"))
        o->share = v;
    else if (!strcmp(k, "--format"))
        o->format = v;
    else if (!strcmp(k, "--content"))
        o->content = v;
    else if (!strcmp(k, "--output"))
        a->output = v;
    else if (!strcmp(k, "--memo")) {
        uint64_t b = size_arg(v, "--memo");
        if (b && b < 1u << 20)
            die(2, "--memo %s: want 0 (none) or at least 1M", v);
        o->memo_bytes = b >> 20 << 20;
        o->no_memo = !b;
    } else if (!strcmp(k, "--mrc"))
        o->mrc = v;
    else if (!strcmp(k, "--plot")) {
        if (plot_prefix_error(v))
            die(2, "--plot: %s", plot_prefix_error(v));
        a->plot = v;
    } else if (!strcmp(k, "--disk-latency"))
        o->prices.disk_ns = latency(v);
    else if (!strcmp(k, "--cpu-price"))
        cpu_price(a, v);
    else if (!strcmp(k, "--jobs")) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*v < '0' || *v > '9' || *end || n < 1 || n > MAX_THREADS)
            die(2, "--jobs %s: want worker threads, 1 to %d", v, MAX_THREADS);
        o->threads = (int)n;
        a->jobs_set = true;
    } else if (!strcmp(k, "--page-size")) {
        uint64_t ps = size_arg(v, "--page-size");
        if (ps < 512 || ps > 65536 || (ps & (ps - 1)))
            die(2, "--page-size %s: want a power of two from 512 to 65536", v);
        o->page_size = (size_t)ps;
    } else if (!strcmp(k, "--set")) {
        if (!strchr(v, '=') || o->nsets == MAX_SETS)
            die(2, "--set %s: want KEY=V1,V2,... (at most 8)", v);
        a->sets[o->nsets++] = v;
    } else if (!strcmp(k, "--plan")) {
        if (a->plan_dir)
            die(2, "%s", "--plan given twice");
        a->plan_dir = v;
    } else
        return false;
    return true;
}

/* A flag (no value): false if a is not one. */
static bool flag(struct sweep_args *a, const char *k)
{
    if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
        usage(stdout);
        exit(outfile_stdout_close(NAME));
    }
    if (!strcmp(k, "--version")) {
        printf(NAME " (libzcache %s)\n", zc_version());
        exit(outfile_stdout_close(NAME));
    }
    if (!strcmp(k, "--run-job") || !strcmp(k, "--merge"))
        die(2, "%s comes first: " NAME " %s DIR%s", k, k,
            strcmp(k, "--merge") ? " N" : "");
    if (!strcmp(k, "--adaptive"))
        a->so.adaptive = true;
    else if (!strcmp(k, "--join"))
        a->so.join = true;
    else if (!strncmp(k, "--adaptive=", 11)) {
        a->so.adaptive = true;
        parse_controllers(a, k + 11);
    } else
        return false;
    return true;
}

static void parse_args(int argc, char **argv, struct sweep_args *a)
{
    a->traces = calloc((size_t)argc, sizeof(*a->traces));
    if (!a->traces)
        die(1, "%s", "out of memory");
    a->so.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (strncmp(k, "--", 2) && strcmp(k, "-h")) {
            a->traces[a->ntraces++] = k;
            continue;
        }
        if (flag(a, k))
            continue;
        if (i + 1 >= argc) {
            static const char *const with_value[] = {"--adapt",
                                                     "--capacity",
                                                     "--content",
                                                     "--cpu-price",
                                                     "--disk-latency",
                                                     "--format",
                                                     "--jobs",
                                                     "--memo",
                                                     "--memory",
                                                     "--mrc",
                                                     "--output",
                                                     "--page-cache",
                                                     "--page-cache-model",
                                                     "--page-size",
                                                     "--plot",
                                                     "--read-ahead-kb",
                                                     "--set",
                                                     "--share",
                                                     "--zcache",
                                                     "--manifest",
                                                     "--plan"};
            for (size_t w = 0; w < sizeof(with_value) / sizeof(*with_value);
                 w++)
                if (!strcmp(k, with_value[w]))
                    die(2, "option %s needs a value", k);
            die(2, "unknown option '%s'", k);
        }
        if (!strcmp(k, "--plan"))
            a->plan_argi = i;
        if (!option(a, k, argv[++i]))
            die(2, "unknown option '%s'", k);
    }
    if (!a->ntraces && !a->manifest)
        die(2, "%s", "no trace given");
    if (strcmp(a->output, "text") && strcmp(a->output, "csv") &&
        strcmp(a->output, "json"))
        die(2, "--output %s: want text, csv or json", a->output);
    if (a->so.mrc && !strcmp(a->output, "csv"))
        die(2, "%s",
            "--mrc with --output csv: the curve is no row of the "
            "table (--output json holds both)");
    if (a->so.threads < 1)
        a->so.threads = 1;
    if (a->so.threads > MAX_THREADS)
        a->so.threads = MAX_THREADS;
    a->so.sets = a->sets;
    a->so.controllers = a->ctl;
}

/* ---- progress ----------------------------------------------------------- */

/*
 * On a terminal, stderr carries one line redrawn as the work goes (which
 * job of how many, the requests read, and of how many once one pass over
 * the trace has counted them); it is cleared before anything else is
 * written.  Nothing is written when stderr is not a terminal.
 */
static struct {
    const zc_sweep *sw;
    size_t total; /* jobs */
    double start, last;
    pthread_mutex_t lock;
} prog = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int progress_show(void *ctx, size_t job, uint64_t req, size_t done)
{
    const zc_sweep_job *j = &zc_sweep_jobs(prog.sw, NULL)[job];
    const zc_sweep_trace *u = &zc_sweep_traces(prog.sw, NULL)[j->trace];
    double t = cli_now();
    char at[64] = "";

    (void)ctx;
    if (req && t - prog.last < 0.25)
        return 0;
    pthread_mutex_lock(&prog.lock);
    prog.last = t;
    if (req && u->requests)
        snprintf(at, sizeof(at), ": %.0f%% of %" PRIu64 " requests",
                 100.0 * (double)req / (double)u->requests, u->requests);
    else if (req)
        snprintf(at, sizeof(at), ": %" PRIu64 " requests", req);
    fprintf(stderr, "\r\033[K" NAME ": %zu/%zu done, %.0f s; %.40s%s%s", done,
            prog.total, t - prog.start, u->name,
            j->kind == ZC_SWEEP_ADAPTIVE ? " adaptive" : "", at);
    pthread_mutex_unlock(&prog.lock);
    return 0;
}

/* Run jobs[0..n) (NULL: all), with progress on a terminal; exit on a
 * failure of the run (a row's is the row's). */
static void run(zc_sweep *sw, const size_t *jobs, size_t n)
{
    bool tty = isatty(STDERR_FILENO);
    int rc;

    prog.sw = sw;
    prog.total = jobs ? n : (zc_sweep_jobs(sw, &prog.total), prog.total);
    prog.start = prog.last = cli_now();
    rc = zc_sweep_run(sw, jobs, n, tty ? progress_show : NULL, NULL);
    if (tty)
        fprintf(stderr, "\r\033[K");
    if (rc)
        die(cli_status(rc), "%s", zc_sweep_error(sw));
}

/* ---- the collection and its plots --------------------------------------- */

/* The manifest's traces, then the command line's (a directory's in it by
 * name); --join is the library's. */
static void collect(zc_sweep *sw, const struct sweep_args *a)
{
    char note[256];
    size_t skipped, before;
    struct stat sb;
    int rc;

    if (a->manifest && (rc = zc_sweep_add_manifest(sw, a->manifest)))
        die(cli_status(rc), "%s", zc_sweep_error(sw));
    for (size_t i = 0; i < a->ntraces; i++) {
        const char *t = a->traces[i];
        zc_sweep_traces(sw, &before);
        if (!stat(t, &sb) && S_ISDIR(sb.st_mode))
            rc = zc_sweep_add_dir(sw, t, &skipped, note, sizeof(note));
        else
            rc = zc_sweep_add_trace(sw, &t, 1, NULL, NULL, NULL), skipped = 0;
        if (rc)
            die(cli_status(rc), "%s",
                *zc_sweep_error(sw) ? zc_sweep_error(sw) : zc_strerror(rc));
        if (skipped && !a->run_dir && !a->merge_dir) {
            size_t now;
            zc_sweep_traces(sw, &now);
            fprintf(stderr,
                    NAME ": %s: %zu trace%s; skipped %zu file%s that no "
                         "reader takes (%s%s)\n",
                    t, now - before, now - before > 1 ? "s" : "", skipped,
                    skipped > 1 ? "s" : "", note, skipped > 4 ? ", ..." : "");
        }
    }
}

/* The rows [first, first + n) that failed, each message once (rows that
 * failed alike are one line: the first's zcache, and how many more),
 * naming the trace when there are several; the last one's exit status. */
static int report_failures(const zc_sweep *sw, size_t first, size_t n)
{
    size_t nt;
    const zc_sweep_trace *u = zc_sweep_traces(sw, &nt);
    const zc_sweep_row *js = zc_sweep_rows(sw, NULL) + first;
    int status = 0;

    for (size_t i = 0; i < n; i++) {
        size_t more = 0;
        bool said = false;
        if (!js[i].rc)
            continue;
        status = cli_status(js[i].rc);
        for (size_t k = 0; k < i && !said; k++)
            said = js[k].rc && js[k].trace == js[i].trace &&
                   !strcmp(js[k].err, js[i].err);
        if (said)
            continue;
        for (size_t k = i + 1; k < n; k++)
            more += js[k].rc && js[k].trace == js[i].trace &&
                    !strcmp(js[k].err, js[i].err);
        fprintf(stderr, NAME ": %s%s%s: %s", nt > 1 ? u[js[i].trace].name : "",
                nt > 1 ? ": " : "", js[i].spec[0] ? js[i].spec : "off",
                js[i].err);
        if (more)
            fprintf(stderr, " (and %zu more row%s)", more, more > 1 ? "s" : "");
        fputc('\n', stderr);
    }
    return status;
}

int main(int argc, char **argv)
{
    struct sweep_args a = {.output = "text",
                           .so.memo_bytes = 1ull << 30,
                           .so.prices.disk_ns = 100000};
    char err[2048], **given;
    zc_sweep *sw;
    size_t n;
    int rc, status = 0;

    cli_init(NAME, NULL);
    /* --run-job DIR N and --merge DIR take the plan's arguments */
    if (argc > 1 &&
        (!strcmp(argv[1], "--run-job") || !strcmp(argv[1], "--merge")))
        plan_command(&argc, &argv, &a);
    given = argv;
    parse_args(argc, argv, &a);
    if ((rc = zc_sweep_create(&a.so, &sw, err, sizeof(err))))
        die(cli_status(rc), "%s", err);
    collect(sw, &a);
    /* a job makes its own rows, not the plan's */
    if (a.run_dir && (rc = zc_sweep_select_job(sw, a.run_job)))
        die(cli_status(rc), "%s", zc_strerror(rc));
    if ((rc = zc_sweep_prepare(sw)))
        die(cli_status(rc), "%s", zc_sweep_error(sw));
    plot_prefixes(sw, &a);
    if (a.plan_dir) {
        plan_write(sw, &a, argc, given);
        status = outfile_stdout_close(NAME);
    } else if (a.run_dir) {
        const zc_sweep_job *j = &zc_sweep_jobs(sw, NULL)[0]; /* (the job) */
        double t0 = cli_now();
        plan_job_check(sw, &a); /* before the work, not after it */
        run(sw, NULL, 0);
        if ((status = plan_job_save(sw, &a, cli_now() - t0)))
            report_failures(sw, j->first_row, j->nrows);
    } else {
        if (a.merge_dir)
            plan_merge(sw, &a);
        else
            run(sw, NULL, 0);
        zc_sweep_rows(sw, &n);
        if (!(status = report_failures(sw, 0, n)))
            report_output(sw, &a);
        if (!status)
            status = outfile_stdout_close(NAME);
    }
    zc_sweep_traces(sw, &n);
    for (size_t i = 0; a.plots && i < n; i++)
        free(a.plots[i]);
    free(a.plots);
    free(a.traces);
    for (int i = 0; i < 4; i++)
        free(a.plan_mem[i]);
    zc_sweep_destroy(sw);
    return status;
}
