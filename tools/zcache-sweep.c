/*
 * zcache-sweep - one trace, many configurations, one table.
 *
 *   zcache-sweep [OPTIONS] TRACE...
 *
 * The cross product of --page-cache sizes, --capacity values and every
 * --set KEY=V1,V2,... is run; or, with --memory M --share S1,S2,..., a
 * fixed memory M is split: the zcache gets S% of it (its capacity) and
 * the page cache the rest, S = 0 being the baseline without a zcache.
 *
 * Work is done once where it can be: for each page-cache size the model
 * runs once (its op stream does not depend on the zcache), and the
 * library's fan-out (zc_fanout) plays its ops into every configuration,
 * in batches over the worker threads (--jobs, default: the cores), each
 * distinct page content of a batch compressed once per compressor into a
 * shared memo.  The costs come from zc_cost_of().  So each row is exactly what
 * `zcache-replay --page-cache P --zcache SPEC` gives for the same trace
 * (tests/sweep_matches_replay.sh checks it).  The page-cache hits of every
 * size also come from one pass of the exact LRU curve (zc_mrc) and are
 * checked against the model's.  Adaptive rows run apart, a replay each.
 *
 * A .zct given as the trace is played as it is (its page cache is fixed).
 * Output: an aligned table (the memory-split mode marks the share with the
 * fewest disk reads), or CSV / JSON with every field named.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <assert.h>
#include <dirent.h>
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
#include "trace_content.h"

/* The most rows one sweep makes: every row is a cache in memory and a
 * replay of the trace, and the lists' cross product grows fast (64 values
 * in each of four lists are 16.7 M rows).  Counted before any is made. */
#define MAX_ROWS 100000
/* The most traces of one collection. */
#define MAX_TRACES 100000

struct sweep_options o = {.content = "synth",
                          .output = "text",
                          .zbase = "",
                          .page_size = 4096,
                          .prices = {.disk_ns = 100000},
                          .memo_mb = 1024};
struct unit *units;
size_t nunits;
struct job *rows;
size_t nrows;
struct work *works;
size_t nworks;

static zc_memo *memo; /* shared: each distinct content compressed once */
static size_t maxrows;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void usage(FILE *f)
{
    fprintf(f, "usage: " NAME " [OPTIONS] TRACE...\n"
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
               "$SLURM_CPUS_PER_TASK, else 1)\n"
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
            MAX_ROWS);
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
        fprintf(f, "  %-19s %s\n", zc_config_key_name(i),
                zc_config_key_doc(i));
}

uint64_t size_arg(const char *s, bool pages, const char *what)
{
    uint64_t v;
    int rc = zc_parse_size(s, &v);

    if (rc < 0)
        die(2, "%s: want a number, or bytes with K/M/G", what);
    return pages && rc == 1 ? v / o.page_size : v;
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

/* bytes as a size the lists take: 64M, 512K, or a plain number */
static void size_label(char *out, size_t n, uint64_t bytes)
{
    if (bytes && !(bytes % (1u << 20)))
        snprintf(out, n, "%" PRIu64 "M", bytes >> 20);
    else if (bytes && !(bytes % 1024))
        snprintf(out, n, "%" PRIu64 "K", bytes >> 10);
    else
        snprintf(out, n, "%" PRIu64, bytes);
}

/* A comma list; an item FROM:TO:STEP of sizes is a range (suffixes
 * allowed, e.g. 0:32M:4M).  Items of --set lists are kept as they are. */
static char range_vals[8 * MAX_LIST][24]; /* a range's values, written out */
static size_t nrange_vals;

size_t split_list(char *list, char **out, bool ranges,
                         const char *what)
{
    size_t n = 0;
    char *save = NULL;

    for (char *p = strtok_r(list, ",", &save); p;
         p = strtok_r(NULL, ",", &save)) {
        char *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (ranges && c1 && c2) {
            uint64_t from, to, step;
            int sf, st, ss;
            bool bytes;
            *c1 = *c2 = '\0';
            sf = zc_parse_size(p, &from);
            st = zc_parse_size(c1 + 1, &to);
            ss = zc_parse_size(c2 + 1, &step);
            *c1 = *c2 = ':'; /* the messages name the whole range */
            if (sf < 0 || st < 0 || ss < 0 || step == 0 || to < from)
                die(2, "%s %s: want FROM:TO:STEP", what, p);
            /* Sizes with a suffix are bytes; say so in each value, so that
             * page-cache sizes are read as bytes, not pages. */
            bytes = sf == 1 || st == 1 || ss == 1;
            for (uint64_t v = from; v <= to; v += step) {
                if (n == MAX_LIST)
                    die(2, "%s %s: more than %d values", what, p, MAX_LIST);
                if (nrange_vals == sizeof(range_vals) / sizeof(*range_vals))
                    die(1, "%s", "too many range values");
                out[n] = range_vals[nrange_vals++];
                if (bytes && v % 1024 == 0)
                    size_label(out[n++], 24, v);
                else if (bytes)
                    die(2,
                        "%s %s: sizes in bytes must be whole KiB (FROM and "
                        "STEP)",
                        what, p);
                else
                    snprintf(out[n++], 24, "%" PRIu64, v);
            }
            continue;
        }
        if (n == MAX_LIST)
            die(2, "%s: more than %d values", what, MAX_LIST);
        out[n++] = p;
    }
    if (!n && ranges) /* (an empty --set list is said by check_sets) */
        die(2, "%s: an empty list", what);
    return n;
}

static size_t split(char *list, char **out, const char *what)
{
    return split_list(list, out, false, what);
}

/* Split each --set list once and check it before any work: not empty,
 * each value one the configuration parser takes, so that a bad one is
 * said once (not once per row).  With --memory, --share gives the
 * capacity: a --set of it is refused (a sentinel shows which keys set
 * it, the parser knowing its aliases). */

static void check_sets(void)
{
    zc_config cfg = zc_config_default();
    char err[512], msg[2048];

    cfg.capacity_bytes = SIZE_MAX;
    if (zc_config_parse_error(&cfg, o.zbase, err, sizeof(err))) {
        snprintf(msg, sizeof(msg), "--zcache %s: %s", o.zbase, err);
        die(2, "%s", msg);
    }
    /* The rows' capacities: --capacity (or --set capacity), else the one
     * --zcache names, else the library's default when a zcache is asked
     * for at all (--zcache or --set); never two sources, one silently
     * dropped. */
    if (cfg.capacity_bytes != SIZE_MAX) {
        if (o.cap_list || o.memory) {
            snprintf(msg, sizeof(msg),
                     "--zcache %s: names a capacity, and so does %s; give "
                     "capacities in one place",
                     o.zbase, o.memory ? "--memory's --share" : "--capacity");
            die(2, "%s", msg);
        }
        if (!cfg.capacity_bytes) {
            snprintf(msg, sizeof(msg),
                     "--zcache %s: capacity 0 is no zcache in a sweep; say "
                     "--capacity 0 for rows without one",
                     o.zbase);
            die(2, "%s", msg);
        }
        size_label(o.zcap, sizeof(o.zcap), cfg.capacity_bytes);
    } else if (*o.zbase || o.nsets) {
        size_label(o.zcap, sizeof(o.zcap), zc_config_default().capacity_bytes);
    } else {
        snprintf(o.zcap, sizeof(o.zcap), "0");
    }
    for (int s = 0; s < o.nsets; s++) {
        char given[1024];
        snprintf(given, sizeof(given), "%s=%s", o.set_key[s], o.set_vals[s]);
        o.set_n[s] = split(o.set_vals[s], o.set_v[s], "--set");
        if (!o.set_n[s])
            die(2, "--set %s: want KEY=V1,V2,... (the list is empty)", given);
        for (size_t i = 0; i < o.set_n[s]; i++) {
            char item[1024];
            snprintf(item, sizeof(item), "%s=%s", o.set_key[s], o.set_v[s][i]);
            /* on top of --zcache, as the rows are; a value that other
             * --set lists may make valid (level with compressor) is left
             * to the rows, each failure said once */
            cfg = zc_config_default();
            zc_config_parse_error(&cfg, o.zbase, err, sizeof(err));
            cfg.capacity_bytes = SIZE_MAX;
            if (zc_config_parse_error(&cfg, item, err, sizeof(err)) &&
                o.nsets == 1) {
                snprintf(msg, sizeof(msg), "--set %s: %s", given, err);
                die(2, "%s", msg);
            }
            o.set_cap[s] = cfg.capacity_bytes != SIZE_MAX;
            if (o.memory && o.set_cap[s])
                die(2,
                    "--set %s: with --memory the capacity is the zcache's "
                    "--share",
                    given);
        }
    }
}

/* --adaptive=NAME,...: one adaptive row per controller (and --set
 * combination), each named once; the names are the controller key's. */
static void parse_controllers(const char *list)
{
    const char *p = list;

    o.nctl = 0;
    for (;;) {
        size_t n = strcspn(p, ",");
        zc_adapt_options t = {0};
        char spec[64];
        if (n > 32 || (snprintf(spec, sizeof(spec), "controller=%.*s", (int)n,
                                p),
                       zc_adapt_options_parse(&t, spec, NULL, 0)))
            die(2, "--adaptive=%s: want controllers among model, fixed, arc",
                list);
        for (int i = 0; i < o.nctl; i++)
            if (o.ctl[i] == t.controller)
                die(2, "--adaptive=%s: %s named twice", list,
                    zc_adapt_controller_name(t.controller));
        if (o.nctl == 3)
            die(2, "--adaptive=%s: at most 3 controllers", list);
        o.ctl[o.nctl++] = t.controller;
        if (!p[n])
            return;
        p += n + 1;
    }
}

static void parse_args(int argc, char **argv)
{
    o.traces = calloc((size_t)argc, sizeof(*o.traces));
    o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const with_value[] = {
            "--adapt",     "--capacity", "--content",    "--cpu-price",
            "--disk-latency", "--format", "--jobs",      "--memo",
            "--memory",    "--mrc",      "--output",     "--page-cache",
            "--page-cache-model", "--page-size", "--plot", "--read-ahead-kb",
            "--set",       "--share",    "--zcache",     "--manifest",
            "--plan"};
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(outfile_stdout_close(NAME));
        }
        if (!strcmp(a, "--version")) {
            printf(NAME " (libzcache %s)\n", zc_version());
            exit(outfile_stdout_close(NAME));
        }
        if (strncmp(a, "--", 2)) {
            o.traces[o.ntraces++] = a;
            continue;
        }
        if (!strcmp(a, "--adaptive")) {
            o.adaptive = true;
            continue;
        }
        if (!strcmp(a, "--join")) {
            o.join = true;
            continue;
        }
        if (!strcmp(a, "--run-job") || !strcmp(a, "--merge"))
            die(2, "%s comes first: " NAME " %s DIR%s", a, a,
                strcmp(a, "--merge") ? " N" : "");
        if (!strncmp(a, "--adaptive=", 11)) {
            o.adaptive = true;
            parse_controllers(a + 11);
            continue;
        }
        if (!v) {
            for (size_t k = 0; k < sizeof(with_value) / sizeof(*with_value);
                 k++)
                if (!strcmp(a, with_value[k]))
                    die(2, "option %s needs a value", a);
            die(2, "unknown option '%s'", a);
        }
        i++;
        if (!strcmp(a, "--page-cache"))
            o.pc_list = v;
        else if (!strcmp(a, "--page-cache-model")) {
            if (!trace_model_known(v))
                die(2, "--page-cache-model %s: no such model (zcache-replay "
                       "--help lists them)",
                    v);
            o.model = v;
        } else if (!strcmp(a, "--read-ahead-kb")) {
            if (trace_parse_read_ahead(v, &o.ra_kb))
                die(2, "--read-ahead-kb %s: want KiB from 0 to 4194304", v);
            o.ra_set = true;
        }
        else if (!strcmp(a, "--capacity"))
            o.cap_list = v;
        else if (!strcmp(a, "--zcache"))
            o.zbase = v;
        else if (!strcmp(a, "--manifest")) {
            if (o.manifest)
                die(2, "%s", "--manifest given twice (list every trace in one)");
            o.manifest = v;
        } else if (!strcmp(a, "--plan")) {
            if (o.plan_dir)
                die(2, "%s", "--plan given twice");
            o.plan_dir = v;
            o.plan_argi = i - 1;
        }
        else if (!strcmp(a, "--memory"))
            o.memory = v;
        else if (!strcmp(a, "--adapt")) {
            char err[256];
            o.adaptive = true;
            if (zc_adapt_options_parse(&o.adapt, v, err, sizeof(err)))
                die(2, "--adapt: %s", err);
            if (o.adapt.memory_bytes)
                die(2, "--adapt %s: the memory is --memory's", v);
        } else if (!strcmp(a, "--share"))
            o.share_list = v;
        else if (!strcmp(a, "--format"))
            o.format = v;
        else if (!strcmp(a, "--content")) {
            o.content = v;
            o.content_set = true;
        } else if (!strcmp(a, "--output"))
            o.output = v;
        else if (!strcmp(a, "--memo")) {
            uint64_t b = size_arg(v, false, "--memo");
            if (b && b < 1u << 20)
                die(2, "--memo %s: want 0 (none) or at least 1M", v);
            o.memo_mb = b >> 20;
        } else if (!strcmp(a, "--mrc"))
            o.mrc_list = v;
        else if (!strcmp(a, "--plot")) {
            if (plot_prefix_error(v))
                die(2, "--plot: %s", plot_prefix_error(v));
            o.plot = v;
        } else if (!strcmp(a, "--disk-latency"))
            o.prices.disk_ns = latency(v);
        else if (!strcmp(a, "--cpu-price")) {
            /* the controller's own keys and parser (zc_adapt_options) */
            zc_adapt_options p = {0};
            char err[256];
            if (zc_adapt_options_parse(&p, v, err, sizeof(err)) ||
                !p.put_ns || !p.get_ns || p.memory_bytes || p.disk_ns ||
                p.steps || p.epoch || p.decay_percent || p.probe_every ||
                p.start_percent || p.ghost_factor)
                die(2, "--cpu-price %s: want put=T,get=T, both above 0 (e.g. "
                       "put=6us,get=2us)",
                    v);
            o.prices.put_ns = p.put_ns;
            o.prices.get_ns = p.get_ns;
        }
        else if (!strcmp(a, "--jobs")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || n < 1 || n > 64)
                die(2, "--jobs %s: want worker threads, 1 to 64", v);
            o.jobs = (int)n;
            o.jobs_set = true;
        } else if (!strcmp(a, "--page-size")) {
            uint64_t ps = size_arg(v, false, "--page-size");
            if (ps < 512 || ps > 65536 || (ps & (ps - 1)))
                die(2, "--page-size %s: want a power of two from 512 to 65536",
                    v);
            o.page_size = (size_t)ps;
        }
        else if (!strcmp(a, "--set")) {
            char *eq = strchr(v, '=');
            if (!eq || o.nsets == MAX_SETS)
                die(2, "--set %s: want KEY=V1,V2,... (at most 8)", v);
            *eq = '\0';
            o.set_key[o.nsets] = v;
            o.set_vals[o.nsets++] = eq + 1;
        } else
            die(2, "unknown option '%s'", a);
    }
    if (!o.ntraces && !o.manifest)
        die(2, "%s", "no trace given");
    if (strcmp(o.output, "text") && strcmp(o.output, "csv") &&
        strcmp(o.output, "json"))
        die(2, "--output %s: want text, csv or json", o.output);
    if (o.mrc_list && !strcmp(o.output, "csv"))
        die(2, "%s", "--mrc with --output csv: the curve is no row of the "
                     "table (--output json holds both)");
    if (o.jobs < 1)
        o.jobs = 1;
    if (o.memory && (size_arg(o.memory, false, "--memory") == 0 ||
                     size_arg(o.memory, false, "--memory") < o.page_size))
        die(2, "--memory %s: want at least a page", o.memory);
    if (o.memory &&
        size_arg(o.memory, false, "--memory") / o.page_size > ZC_REPLAY_PAGES_MAX)
        die_too_many_pages("--memory", o.memory);
    if (o.memory && !o.share_list && !o.adaptive)
        die(2, "%s", "--memory wants --share S1,S2,... or --adaptive");
    if (!o.memory && (o.share_list || o.adaptive))
        die(2, "%s", "--share and --adaptive need --memory M");
    if (o.memory && (o.pc_list || o.cap_list))
        die(2, "%s", "--memory splits memory: no --page-cache or --capacity");
    check_sets();
}

/* Why zc_cache_create(cfg) failed with rc, in the job (main() prints the
 * spec before it); the exit status. */
static int cache_error(struct job *j, const zc_config *cfg, int rc)
{
    if (rc == -ZC_EINVAL && cfg->capacity_bytes > ZC_CAPACITY_MAX)
        snprintf(j->err, sizeof(j->err),
                 "capacity %zu bytes: more than the library's largest, "
                 "%zu (15 GiB)",
                 cfg->capacity_bytes, (size_t)ZC_CAPACITY_MAX);
    else if (rc == -ZC_ENOMEM)
        snprintf(j->err, sizeof(j->err),
                 "capacity %zu bytes: does not fit in memory",
                 cfg->capacity_bytes);
    else
        snprintf(j->err, sizeof(j->err), "cannot make this zcache: %s",
                 zc_strerror(rc));
    return j->rc = rc == -ZC_ENOMEM ? 1 : 2;
}

/* The cache of a job's spec (NULL and 0 for "off"); on failure the job
 * says why and 2 is returned. */
static int open_cache(struct job *j, zc_cache **zc)
{
    zc_config cfg = zc_config_default();
    int rc;

    *zc = NULL;
    if (!j->spec[0])
        return 0;
    cfg.page_size = o.page_size;
    cfg.memo = memo;
    if (zc_config_parse_error(&cfg, j->spec, j->err, sizeof(j->err)))
        return j->rc = 2;
    if (cfg.page_size != o.page_size) {
        snprintf(j->err, sizeof(j->err),
                 "page_size=%zu differs from the trace's %zu", cfg.page_size,
                 o.page_size);
        return j->rc = 2;
    }
    if ((rc = zc_cache_create(&cfg, zc)))
        return cache_error(j, &cfg, rc);
    snprintf(j->compressor, sizeof(j->compressor), "%s", cfg.compressor);
    zc_config_format(&cfg, j->config, sizeof(j->config));
    return 0;
}

/* ---- progress ----------------------------------------------------------- */

/*
 * On a terminal, stderr carries one line redrawn as the work goes (which
 * work of how many, the requests read, and of how many once one pass over
 * the trace has counted them); it is cleared before anything else is
 * written.  Nothing is written when stderr is not a terminal.
 */
static struct {
    bool tty;
    size_t done, total; /* works */
    double start, last;
    pthread_mutex_t lock;
} prog = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_start(size_t total)
{
    prog.tty = isatty(STDERR_FILENO);
    prog.total = total;
    prog.done = 0;
    prog.start = prog.last = now_s();
}

/* The work w is reading request `req` (0: starting or ended). */
static void progress_show(const struct work *w, uint64_t req)
{
    const struct unit *u = &units[w->unit];
    double t = now_s();
    char at[64] = "";

    if (!prog.tty || (req && t - prog.last < 0.25))
        return;
    pthread_mutex_lock(&prog.lock);
    prog.last = t;
    if (req && u->requests)
        snprintf(at, sizeof(at), ": %.0f%% of %" PRIu64 " requests",
                 100.0 * (double)req / (double)u->requests, u->requests);
    else if (req)
        snprintf(at, sizeof(at), ": %" PRIu64 " requests", req);
    fprintf(stderr, "\r\033[K" NAME ": %zu/%zu done, %.0f s; %.40s%s%s",
            prog.done, prog.total, t - prog.start, u->name,
            w->kind == WORK_ADAPTIVE ? " adaptive" : "", at);
    pthread_mutex_unlock(&prog.lock);
}

static void progress_done(void)
{
    pthread_mutex_lock(&prog.lock);
    prog.done++;
    pthread_mutex_unlock(&prog.lock);
}

static void progress_clear(void)
{
    if (prog.tty)
        fprintf(stderr, "\r\033[K");
}

/* ---- lockstep: one page-cache model, many caches ------------------------ */

/* The LRU curve of a row's pass: its hits at the row's size, checked
 * against the model when the model is exact LRU; the --mrc sizes too when
 * the work is its trace's first. */
static void take_curve(const struct work *w, zc_mrc *mrc)
{
    struct unit *u = &units[w->unit];
    bool lru = !o.model || !strcmp(o.model, "lru");

    for (size_t i = w->first; i < w->first + w->n; i++) {
        struct job *j = &rows[i];
        j->mrc_hits = zc_mrc_hits(mrc, j->pc_pages);
        if (lru && !j->adaptive && !j->rc && j->mrc_hits != j->st.pc_hits) {
            snprintf(j->err, sizeof(j->err),
                     "internal error: LRU curve %" PRIu64 " hits, model %" PRIu64
                     " at %" PRIu64 " pages",
                     j->mrc_hits, j->st.pc_hits, j->pc_pages);
            j->rc = 1;
        }
    }
    if (!w->curve)
        return;
    u->have_curve = true;
    u->curve_accesses = zc_mrc_accesses(mrc);
    u->curve_distinct = zc_mrc_distinct(mrc);
    for (size_t i = 0; i < o.nmrc; i++)
        u->curve_hits[i] = zc_mrc_hits(mrc, o.mrc_pages[i]);
}

/*
 * For a block trace, every configuration of one page-cache size sees the
 * same op stream: the model runs once and its ops fan out to every row's
 * player (zc_fanout: in batches, over --jobs threads, each distinct
 * content compressed once into the shared memo).
 */
static void run_group(const struct work *w)
{
    struct unit *u = &units[w->unit];
    struct job *group = rows + w->first;
    size_t n = w->n;
    uint64_t pc_pages = group[0].pc_pages, nreq = 0;
    zc_trace_options to = {.format = u->format, .page_size = o.page_size};
    zc_content *content = NULL;
    zc_replay *r;
    zc_trace *t;
    zc_mrc *mrc;
    zc_request q = {0};
    char err[512];
    bool checked = false, need_content = false;
    zc_fanout *fan;
    int rc;

    if (zc_fanout_create(o.page_size, o.jobs, memo, &fan) ||
        zc_mrc_create(&mrc))
        die(1, "%s", "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct job *j = &group[i];
        if (open_cache(j, &j->zc))
            continue;
        if (zc_player_create(j->zc, &j->player) ||
            zc_fanout_add(fan, j->player, j->zc))
            die(1, "%s", "out of memory");
    }
    /* contents only for puts into a zcache: none when no row has one */
    for (size_t i = 0; i < n; i++)
        need_content |= group[i].zc != NULL;
    if (need_content &&
        (rc = zc_content_open(u->content, o.page_size, &content, err,
                              sizeof(err))))
        die(trace_content_status(rc), "--content: %s", err);
    if ((rc = zc_trace_open(u->paths, u->npaths, &to, &t, err, sizeof(err))))
        die(trace_content_status(rc), "%s", err);
    rc = zc_replay_create(pc_pages, o.page_size, NULL, content, &r);
    if (rc == -ZC_ENOMEM) {
        snprintf(err, sizeof(err),
                 "%s: a page cache of %" PRIu64 " pages of %zu bytes "
                 "(%.1f GiB) does not fit in memory",
                 o.memory ? "--memory" : "--page-cache", pc_pages, o.page_size,
                 (double)pc_pages * (double)o.page_size / (1u << 30));
        die(1, "%s", err);
    }
    if (!rc && (rc = trace_model_setup(r, t, u->paths[0], o.model, o.ra_set,
                                       o.ra_kb, err, sizeof(err))) == -1)
        die(2, "%s", err);
    if (rc || zc_replay_sink(r, zc_fanout_sink, fan))
        die(1, "%s", "cannot set up the page-cache model");
    progress_show(w, 0);
    while ((rc = zc_trace_next(t, &q)) == 1) {
        if (q.ino && !checked && content) {
            checked = true;
            if (trace_content_check(content, u->content, &q, o.page_size, err,
                                    sizeof(err)))
                die(2, "%s", err);
        }
        if ((rc = zc_replay_request(r, &q))) {
            char msg[1024];
            trace_content_explain(content, u->content, &q, o.page_size, rc,
                                  err, sizeof(err));
            snprintf(msg, sizeof(msg), "%s: %s", u->paths[0], err);
            die(trace_content_status(rc), "%s", msg);
        }
        if (zc_mrc_request(mrc, &q, o.page_size))
            die(1, "%s", "out of memory");
        if (!(++nreq & 0xffff))
            progress_show(w, nreq);
    }
    if (rc < 0)
        die(trace_content_status(rc), "%s", zc_trace_error(t));
    u->requests = nreq;
    zc_fanout_flush(fan);
    /* the requests are the model's (one pass for the group); the rest is
     * each row's player's */
    zc_replay_stats model_st;
    zc_replay_stats_get(r, &model_st);
    for (size_t i = 0, k = 0; i < n; i++) {
        struct job *j = &group[i];
        if (j->player && (rc = zc_fanout_status(fan, k++))) {
            snprintf(j->err, sizeof(j->err), "%s", zc_strerror(rc));
            j->rc = 1;
        }
        if (j->player)
            zc_player_stats_get(j->player, &j->st);
        j->st.requests = model_st.requests;
        if (j->zc) {
            zc_stats_get(j->zc, &j->zs);
            j->have_zs = true;
            /* a --set capacity=... overrides --capacity: the cache's */
            j->cap_bytes = j->zs.capacity_bytes;
        }
        zc_player_destroy(j->player);
        zc_cache_destroy(j->zc);
        j->player = NULL;
        j->zc = NULL;
    }
    take_curve(w, mrc);
    zc_mrc_destroy(mrc);
    zc_fanout_destroy(fan);
    zc_replay_destroy(r);
    zc_trace_close(t);
    zc_content_close(content);
}

/* ---- adaptive rows ------------------------------------------------------ */

/* One adaptive row, the work w: the whole pipeline with the controller,
 * on its own (no memo: its CPU is its own).  An adaptive row's capacity
 * stays all of M, which it moves. */
static void adapt_one(const struct work *w)
{
    struct job *j = &rows[w->first];
    const struct unit *u = &units[j->unit];
    zc_trace_options to = {.format = u->format, .page_size = o.page_size};
    zc_config cfg = zc_config_default();
    zc_content *content = NULL;
    zc_replay *r = NULL;
    zc_trace *t = NULL;
    zc_cache *zc = NULL;
    zc_mrc *mrc = NULL;
    zc_request q = {0};
    const zc_adapt_epoch *e;
    zc_adapt_options ao = o.adapt;
    uint64_t nreq = 0;
    bool checked = false;
    int rc;

    ao.controller = j->controller;
    cfg.page_size = o.page_size;
    if (zc_config_parse_error(&cfg, j->spec, j->err, sizeof(j->err))) {
        j->rc = 2;
        return;
    }
    zc_config_format(&cfg, j->config, sizeof(j->config));
    if (zc_mrc_create(&mrc))
        die(1, "%s", "out of memory");
    if ((rc = zc_cache_create(&cfg, &zc))) {
        cache_error(j, &cfg, rc);
        goto out;
    }
    if ((rc = zc_content_open(u->content, o.page_size, &content, j->err,
                              sizeof(j->err))) ||
        (rc = zc_trace_open(u->paths, u->npaths, &to, &t, j->err,
                            sizeof(j->err))) ||
        (rc = zc_replay_create(j->pc_pages, o.page_size, zc, content, &r)) ||
        (rc = trace_model_setup(r, t, u->paths[0], o.model, o.ra_set,
                                o.ra_kb, j->err, sizeof(j->err))) ||
        (rc = zc_replay_adapt(r, &ao))) {
        if (!j->err[0])
            snprintf(j->err, sizeof(j->err), "%s", zc_strerror(rc));
        j->rc = rc == -ZC_ENOMEM ? 1 : 2;
        goto out;
    }
    while ((rc = zc_trace_next(t, &q)) == 1) {
        if (q.ino && !checked) {
            checked = true;
            if (trace_content_check(content, u->content, &q, o.page_size,
                                    j->err, sizeof(j->err))) {
                j->rc = 2;
                goto out;
            }
        }
        if ((rc = zc_replay_request(r, &q))) {
            char msg[512];
            trace_content_explain(content, u->content, &q, o.page_size, rc,
                                  msg, sizeof(msg));
            snprintf(j->err, sizeof(j->err), "%s: %s", u->paths[0], msg);
            j->rc = trace_content_status(rc);
            goto out;
        }
        if (zc_mrc_request(mrc, &q, o.page_size))
            die(1, "%s", "out of memory");
        if (!(++nreq & 0xffff))
            progress_show(w, nreq);
    }
    if (rc < 0) {
        snprintf(j->err, sizeof(j->err), "%s", zc_trace_error(t));
        j->rc = 2;
        goto out;
    }
    zc_replay_stats_get(r, &j->st);
    zc_stats_get(zc, &j->zs);
    j->have_zs = true;
    j->nepochs = zc_replay_adapt_log(r, &e);
    j->epochs = malloc((j->nepochs ? j->nepochs : 1) * sizeof(*e));
    if (!j->epochs)
        die(1, "%s", "out of memory");
    if (j->nepochs) /* (no epoch ended: e may be NULL) */
        memcpy(j->epochs, e, j->nepochs * sizeof(*e));
    take_curve(w, mrc);
out:
    zc_mrc_destroy(mrc);
    zc_replay_destroy(r);
    zc_trace_close(t);
    zc_content_close(content);
    zc_cache_destroy(zc);
}

/* ---- playing ------------------------------------------------------------ */

/* One row of an op stream: the stream into its cache. */
static void play(struct job *j)
{
    zc_cache *zc;
    zc_ops_reader *in;
    zc_player *p;
    zc_op op;
    int rc;

    if (open_cache(j, &zc))
        return;
    if (zc_ops_open(j->ops, &in, j->err, sizeof(j->err)) ||
        zc_player_create(zc, &p)) {
        j->rc = 2;
        zc_cache_destroy(zc);
        return;
    }
    while ((rc = zc_ops_next(in, &op)) == 1)
        if ((rc = zc_player_op(p, &op))) {
            snprintf(j->err, sizeof(j->err), "%s", zc_strerror(rc));
            j->rc = 1;
            break;
        }
    if (rc < 0 && !j->rc) {
        snprintf(j->err, sizeof(j->err), "%s", zc_ops_error(in));
        j->rc = 2;
    }
    zc_player_stats_get(p, &j->st);
    if (zc) {
        zc_stats_get(zc, &j->zs);
        j->have_zs = true;
        j->cap_bytes = j->zs.capacity_bytes;
    }
    zc_player_destroy(p);
    zc_ops_close(in);
    zc_cache_destroy(zc);
}

/* ---- running the work --------------------------------------------------- */

/* The works that run a row a thread: adaptive rows and op streams' rows.
 * Threads take the next row of the list until none is left. */
static struct {
    struct job **list;
    const struct work **of; /* each row's work */
    size_t n, next;
} pool;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        struct job *j;
        const struct work *w;
        pthread_mutex_lock(&lock);
        j = pool.next < pool.n ? pool.list[pool.next] : NULL;
        w = j ? pool.of[pool.next++] : NULL;
        pthread_mutex_unlock(&lock);
        if (!j)
            return NULL;
        progress_show(w, 0);
        if (w->kind == WORK_ADAPTIVE)
            adapt_one(w);
        else
            play(j);
        /* a work of an op stream is done with its last row */
        if (w->kind == WORK_ADAPTIVE || j == &rows[w->first + w->n - 1])
            progress_done();
    }
}

/* Run the rows of the works ws[0..n) that run a row a thread, on up to
 * --jobs threads. */
static void run_pool(const struct work *const *ws, size_t n)
{
    pthread_t th[64];
    int nt;

    pool.n = pool.next = 0;
    for (size_t i = 0; i < n; i++)
        pool.n += ws[i]->n;
    if (!pool.n)
        return;
    pool.list = malloc(pool.n * sizeof(*pool.list));
    pool.of = malloc(pool.n * sizeof(*pool.of));
    if (!pool.list || !pool.of)
        die(1, "%s", "out of memory");
    for (size_t i = 0, k = 0; i < n; i++)
        for (size_t r = 0; r < ws[i]->n; r++, k++) {
            pool.list[k] = &rows[ws[i]->first + r];
            pool.of[k] = ws[i];
        }
    nt = pool.n < (size_t)o.jobs ? (int)pool.n : o.jobs;
    for (int t = 0; t < nt; t++)
        if (pthread_create(&th[t], NULL, worker, NULL))
            die(1, "%s", "cannot start a thread");
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    free(pool.list);
    free(pool.of);
}

/* Run the works ws[0..n): the groups one after the other (each spreads
 * over the threads), then the rest a row a thread. */
static void run_works(const struct work *const *ws, size_t n)
{
    const struct work **rest = malloc((n ? n : 1) * sizeof(*rest));
    size_t nrest = 0;

    if (!rest)
        die(1, "%s", "out of memory");
    progress_start(n);
    for (size_t i = 0; i < n; i++)
        if (ws[i]->kind == WORK_GROUP) {
            run_group(ws[i]);
            progress_done();
        } else {
            rest[nrest++] = ws[i];
        }
    run_pool(rest, nrest);
    progress_clear();
    free(rest);
}

/* ---- the configurations ----------------------------------------------- */

static size_t making; /* the trace whose rows add_job() makes */

static void add_job(uint64_t pc, const char *ops, const char *cap,
                    const int *pick, double share)
{
    struct job *j;
    size_t n = 0;

    assert(nrows < maxrows); /* count_rows() counted it */
    j = &rows[nrows++];
    j->unit = making; /* the trace whose rows are being made */
    j->pc_pages = pc;
    j->ops = ops;
    j->share = share;
    /* an op stream has its own page cache: the group is the stream's */
    if (ops)
        snprintf(j->group, sizeof(j->group), "the recorded page cache%s%s",
                 *o.zbase ? ", " : "", o.zbase);
    else
        snprintf(j->group, sizeof(j->group), "page cache %" PRIu64 "%s%s", pc,
                 *o.zbase ? ", " : "", o.zbase);
    if (!cap)
        return; /* no zcache */
    j->cap_bytes = size_arg(cap, false, "--capacity");
    /* The label and the group go by the capacity the cache gets: a --set
     * of it comes after --capacity in the spec, so it wins. */
    snprintf(j->label, sizeof(j->label), "%s", cap);
    for (int s = 0; s < o.nsets; s++)
        if (o.set_cap[s])
            snprintf(j->label, sizeof(j->label), "%s", o.set_v[s][pick[s]]);
    n = (size_t)snprintf(j->spec, sizeof(j->spec), "%s%scapacity=%s", o.zbase,
                         *o.zbase ? "," : "", cap);
    if (n >= sizeof(j->spec))
        die(2, "a zcache spec longer than %s bytes", "511");
    for (int s = 0; s < o.nsets; s++) {
        const char *const *v = (const char *const *)o.set_v[s];
        n += (size_t)snprintf(j->spec + n, sizeof(j->spec) - n, ",%s=%s",
                              o.set_key[s], v[pick[s]]);
        if (n >= sizeof(j->spec))
            die(2, "a zcache spec longer than %s bytes", "511");
        if (o.set_cap[s])
            continue;
        if (strlen(j->label) + strlen(o.set_key[s]) + strlen(v[pick[s]]) + 3 <
            sizeof(j->label))
            sprintf(j->label + strlen(j->label), " %s=%s", o.set_key[s],
                    v[pick[s]]);
        if (strlen(j->group) + strlen(o.set_key[s]) + strlen(v[pick[s]]) + 3 <
            sizeof(j->group))
            sprintf(j->group + strlen(j->group), ", %s=%s", o.set_key[s],
                    v[pick[s]]);
    }
}

/* Every combination of the --set values, for one (pc, capacity). */
static void add_jobs(uint64_t pc, const char *ops, const char *cap,
                     double share)
{
    int pick[MAX_SETS] = {0};

    if (!cap) {
        add_job(pc, ops, NULL, pick, share);
        return;
    }
    for (;;) {
        int s;
        add_job(pc, ops, cap, pick, share);
        for (s = 0; s < o.nsets && (size_t)++pick[s] == o.set_n[s]; s++)
            pick[s] = 0;
        if (s == o.nsets)
            return;
    }
}

/* A capacity as given (checked), or NULL for 0: no zcache. */
static const char *cap_of(const char *s)
{
    return size_arg(s, false, "--capacity") ? s : NULL;
}

/* A --share value: a percentage, 0 to 100 (checked). */
static double share_of(const char *v)
{
    char *end;
    double s;

    errno = 0;
    s = strtod(v, &end);
    if (end == v || *end || errno || !(s >= 0 && s <= 100) ||
        strpbrk(v, "xXnN"))
        die(2, "--share %s: want a percentage, 0 to 100", v);
    return s;
}

/* The zcache's capacity at a --share of memory m (checked). */
static uint64_t share_cap(uint64_t m, const char *share)
{
    double s = share_of(share);

    return (uint64_t)((double)m * s / 100.0) / o.page_size * o.page_size;
}

/* How many rows the lists make: a capacity (or share) with a zcache
 * takes every --set combination, one without makes one row.  At most
 * 64^10 (ten lists of 64): no overflow. */
static uint64_t count_rows(char **caps, size_t ncap, size_t npc, char **shares,
                           size_t nshare)
{
    uint64_t combos = 1, n = 0;

    for (int s = 0; s < o.nsets; s++)
        combos *= o.set_n[s];
    if (o.memory) {
        uint64_t m = size_arg(o.memory, false, "--memory");
        for (size_t i = 0; i < nshare; i++)
            n += share_cap(m, shares[i]) ? combos : 1;
        return n + (o.adaptive ? combos * (uint64_t)(o.nctl ? o.nctl : 1)
                                  : 0);
    }
    for (size_t c = 0; c < ncap; c++)
        n += cap_of(caps[c]) ? combos : 1;
    return n * npc;
}

/* Room for every row, once counted and found within MAX_ROWS. */
static void make_rows(uint64_t n)
{
    char msg[256];

    if (n > MAX_ROWS) {
        snprintf(msg, sizeof(msg),
                 "%" PRIu64 " rows (the cross product of the lists%s): more "
                 "than a sweep's limit, %d",
                 n, nunits > 1 ? ", for every trace" : "", MAX_ROWS);
        die(2, "%s", msg);
    }
    rows = calloc(n ? (size_t)n : 1, sizeof(*rows));
    if (!rows)
        die(1, "%s", "out of memory");
    maxrows = (size_t)n;
}

/* The rows rows[first..first+n) that failed, each message once (rows that
 * failed alike are one line: the first's zcache, and how many more),
 * naming the trace when there are several; the last status. */
static int report_failures(size_t first, size_t n)
{
    struct job *js = rows + first;
    int status = 0;

    for (size_t i = 0; i < n; i++) {
        size_t more = 0;
        bool said = false;
        if (!js[i].rc)
            continue;
        status = js[i].rc;
        for (size_t k = 0; k < i && !said; k++)
            said = js[k].rc && js[k].unit == js[i].unit &&
                   !strcmp(js[k].err, js[i].err);
        if (said)
            continue;
        for (size_t k = i + 1; k < n; k++)
            more += js[k].rc && js[k].unit == js[i].unit &&
                    !strcmp(js[k].err, js[i].err);
        fprintf(stderr, NAME ": %s%s%s: %s", nunits > 1 ? units[js[i].unit].name : "",
                nunits > 1 ? ": " : "", js[i].spec[0] ? js[i].spec : "off",
                js[i].err);
        if (more)
            fprintf(stderr, " (and %zu more row%s)", more, more > 1 ? "s" : "");
        fputc('\n', stderr);
    }
    return status;
}

/* ---- the traces of a collection ---------------------------------------- */

static size_t maxunits;

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (!d)
        die(1, "%s", "out of memory");
    return d;
}

/* A trace of the collection: the paths (kept), its format and content
 * (NULL: the sweep's). */
static struct unit *add_unit(const char **paths, size_t n, const char *format,
                             const char *content)
{
    struct unit *u;
    size_t len = 1;

    if (nunits == MAX_TRACES)
        die(2, "more than %d traces", MAX_TRACES);
    if (nunits == maxunits) {
        maxunits = maxunits ? 2 * maxunits : 16;
        if (!(units = realloc(units, maxunits * sizeof(*units))))
            die(1, "%s", "out of memory");
    }
    u = &units[nunits++];
    memset(u, 0, sizeof(*u));
    u->paths = paths;
    u->npaths = n;
    for (size_t i = 0; i < n; i++)
        len += strlen(paths[i]) + 1;
    if (!(u->name = malloc(len)))
        die(1, "%s", "out of memory");
    u->name[0] = '\0';
    for (size_t i = 0; i < n; i++)
        sprintf(u->name + strlen(u->name), "%s%s", i ? " " : "", paths[i]);
    u->format = format ? format : o.format;
    u->content = content ? content : o.content;
    u->content_set = content || o.content_set;
    return u;
}

/* Whether path is an op stream (its first bytes say so). */
static bool sniff_ops(const char *path)
{
    unsigned char head[16];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof(head), f) : 0;

    if (f)
        fclose(f);
    return zc_ops_sniff(head, got);
}

/* Whether path is a trace a reader takes (an op stream, or a trace
 * format sniffed from its content). */
static bool is_trace(const char *path)
{
    const char *p[1] = {path};
    zc_trace_options to = {.format = o.format, .page_size = o.page_size};
    zc_trace *t;

    if (sniff_ops(path))
        return true;
    if (zc_trace_open(p, 1, &to, &t, NULL, 0))
        return false;
    zc_trace_close(t);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every trace in directory dir, by name: its regular files that a reader
 * takes (per-CPU blktrace files NAME.blktrace.N as one trace, NAME.blktrace);
 * the others (packs, notes) are listed once on stderr as skipped. */
static void add_dir(const char *dir, const char **paths, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL, skipped[256] = "";
    size_t nn = 0, cap = 0, nskip = 0, before = *n;

    if (!d)
        die(2, "%s: cannot read the directory: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) *
                                                      sizeof(*names))))
            die(1, "%s", "out of memory");
        names[nn++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof(*names), by_name);
    for (size_t i = 0; i < nn; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len), *cpu;
        struct stat sb;
        if (!path)
            die(1, "%s", "out of memory");
        snprintf(path, len, "%s%s%s", dir,
                 dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        if (stat(path, &sb) || !S_ISREG(sb.st_mode)) {
            free(path);
            continue;
        }
        /* NAME.blktrace.N: the capture NAME.blktrace, once */
        cpu = strstr(names[i], ".blktrace.");
        if (cpu && cpu[10] >= '0' && cpu[10] <= '9' &&
            strspn(cpu + 10, "0123456789") == strlen(cpu + 10)) {
            path[strlen(path) - strlen(cpu + 9)] = '\0';
            if (*n > before && !strcmp(paths[*n - 1], path)) {
                free(path);
                continue;
            }
        } else if (!is_trace(path)) {
            if (nskip++ < 4)
                snprintf(skipped + strlen(skipped),
                         sizeof(skipped) - strlen(skipped), "%s%s",
                         nskip > 1 ? ", " : "", names[i]);
            free(path);
            continue;
        }
        if (*n == MAX_TRACES)
            die(2, "%s: more than %d traces", dir, MAX_TRACES);
        paths[(*n)++] = path;
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (*n == before)
        die(2, "%s: no trace in the directory", dir);
    if (nskip && !o.run_dir && !o.merge_dir)
        fprintf(stderr, NAME ": %s: %zu trace%s; skipped %zu file%s that no "
                        "reader takes (%s%s)\n",
                dir, *n - before, *n - before > 1 ? "s" : "", nskip,
                nskip > 1 ? "s" : "", skipped, nskip > 4 ? ", ..." : "");
}

/* A content spec from the manifest at line's directory: a relative file
 * it names is taken from there, as the trace's path is. */
static const char *manifest_content(const char *spec, const char *dir)
{
    const char *file = trace_content_file(spec);
    size_t len;
    char *s;

    if (!file || file[0] == '/' || !strcmp(dir, "."))
        return xstrdup(spec);
    len = strlen(spec) + strlen(dir) + 2;
    if (!(s = malloc(len)))
        die(1, "%s", "out of memory");
    snprintf(s, len, "%.*s%s/%s", (int)(file - spec), spec, dir, file);
    return s;
}

/* Whether name is a registered trace format (or "auto"). */
static bool format_known(const char *name)
{
    if (!strcmp(name, "auto"))
        return true;
    for (size_t i = 0; zc_trace_format_name(i); i++)
        if (!strcmp(zc_trace_format_name(i), name))
            return true;
    return false;
}

/* --manifest FILE: a trace a line, "PATH [format=NAME] [content=SPEC]";
 * a word starting with '#' begins a comment to the end of the line; a
 * relative PATH (or a content's file) is taken from FILE's directory. */
static void read_manifest(const char *file)
{
    FILE *f = fopen(file, "r");
    char *line = NULL, *dir = xstrdup(file), *slash = strrchr(dir, '/');
    size_t cap = 0, lineno = 0, before = nunits;
    ssize_t len;

    if (!f)
        die(2, "--manifest %s: %s", file, strerror(errno));
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        strcpy(dir, ".");
    while ((len = getline(&line, &cap, f)) >= 0) {
        char *save = NULL, *tok, *path;
        const char *format = NULL, *content = NULL, **paths;
        lineno++;
        if (strlen(line) != (size_t)len)
            die(2, "%s:%zu: a NUL byte: not a manifest", file, lineno);
        tok = strtok_r(line, " \t\r\n", &save);
        if (!tok || tok[0] == '#')
            continue;
        if (tok[0] == '/' || !strcmp(dir, "."))
            path = xstrdup(tok);
        else {
            size_t n = strlen(dir) + strlen(tok) + 2;
            if (!(path = malloc(n)))
                die(1, "%s", "out of memory");
            snprintf(path, n, "%s/%s", dir, tok);
        }
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) && tok[0] != '#') {
            if (!strncmp(tok, "format=", 7) && !format && tok[7]) {
                if (!format_known(tok + 7))
                    die(2, "%s:%zu: format=%s: no such format (zcache-replay "
                           "--help lists them)",
                        file, lineno, tok + 7);
                format = xstrdup(tok + 7);
            } else if (!strncmp(tok, "content=", 8) && !content && tok[8]) {
                content = manifest_content(tok + 8, dir);
            } else
                die(2, "%s:%zu: '%s': want PATH [format=NAME] [content=SPEC] "
                       "(each once; no spaces in them)",
                    file, lineno, tok);
        }
        {
            /* named by its line here, not by its path alone later (a
             * blktrace base name stands for NAME.0, NAME.1, ...) */
            struct stat sb;
            size_t n = strlen(path) + 3;
            char *cpu0 = malloc(n);
            if (!cpu0)
                die(1, "%s", "out of memory");
            snprintf(cpu0, n, "%s.0", path);
            if (stat(path, &sb) && stat(cpu0, &sb))
                die(2, "%s:%zu: %.300s%s: %s", file, lineno, path,
                    strlen(path) > 300 ? "..." : "", strerror(errno));
            free(cpu0);
        }
        if (o.join && (format || content))
            die(2, "%s:%zu: --join plays one stream: no format= or content= "
                   "of a trace of its own",
                file, lineno);
        if (!(paths = malloc(sizeof(*paths))))
            die(1, "%s", "out of memory");
        paths[0] = path;
        add_unit(paths, 1, format, content);
        if (content) {
            size_t n = strlen(file) + 32;
            if (!(units[nunits - 1].origin = malloc(n)))
                die(1, "%s", "out of memory");
            snprintf(units[nunits - 1].origin, n, "%s:%zu", file, lineno);
        }
    }
    if (ferror(f))
        die(2, "--manifest %s: %s", file, strerror(errno));
    fclose(f);
    free(line);
    free(dir);
    if (nunits == before)
        die(2, "--manifest %s: no trace listed", file);
}

/* The collection: the manifest's traces, then the command line's (a
 * directory's in it by name); with --join, all of them as one. */
static void collect_units(void)
{
    const char **paths = calloc(MAX_TRACES, sizeof(*paths));
    size_t n = 0;

    if (!paths)
        die(1, "%s", "out of memory");
    if (o.manifest)
        read_manifest(o.manifest);
    for (size_t i = 0; i < o.ntraces; i++) {
        struct stat sb;
        if (!stat(o.traces[i], &sb) && S_ISDIR(sb.st_mode))
            add_dir(o.traces[i], paths, &n);
        else if (n == MAX_TRACES)
            die(2, "more than %d traces", MAX_TRACES);
        else
            paths[n++] = o.traces[i];
    }
    if (o.join) {
        /* the manifest's traces first, as listed */
        size_t m = nunits, k = 0;
        const char **all = calloc(m + n ? m + n : 1, sizeof(*all));
        if (!all)
            die(1, "%s", "out of memory");
        for (size_t i = 0; i < m; i++)
            all[k++] = units[i].paths[0];
        for (size_t i = 0; i < n; i++)
            all[k++] = paths[i];
        nunits = 0;
        add_unit(all, k, NULL, NULL);
        free(paths);
        return;
    }
    for (size_t i = 0; i < n; i++)
        add_unit(paths + i, 1, NULL, NULL);
    if (!n)
        free(paths);
}

/* Check a trace of the collection and settle what it is read as, its
 * content source (the pack its header names, if none was given) and its
 * plots' prefix. */
static void setup_unit(struct unit *u, size_t idx)
{
    trace_refuse_non_regular(u->paths, u->npaths);
    u->is_ops = sniff_ops(u->paths[0]);
    if (idx && u->is_ops != units[0].is_ops)
        die(2, "%s and %s: op streams (.zct) and traces in one sweep: their "
               "page caches differ (sweep them apart)",
            units[0].paths[0], u->paths[0]);
    if (u->is_ops) {
        zc_ops_reader *r;
        char err[512];
        if (o.memory || o.pc_list || u->npaths != 1 || o.mrc_list)
            die(2,
                "%s: an op stream has its page cache: only --capacity and "
                "--set vary (no --page-cache, --memory, --mrc or --join)",
                u->paths[0]);
        if (zc_ops_open(u->paths[0], &r, err, sizeof(err)))
            die(2, "%s", err);
        if (idx && units[0].is_ops && zc_ops_page_size(r) != o.page_size)
            die(2, "%s: pages of %zu bytes, and %s's of %zu: one sweep, one "
                   "page size",
                u->paths[0], zc_ops_page_size(r), units[0].paths[0],
                o.page_size);
        o.page_size = zc_ops_page_size(r);
        zc_ops_close(r);
        u->read_as = "zct";
    } else {
        /* the pack the trace names, if any, and whether the contents fit
         * the trace (never another recording's pack) */
        zc_trace_options to = {.format = u->format, .page_size = o.page_size};
        zc_trace *t;
        zc_content *c;
        char err[512], msg[1024];
        int rc;
        if ((rc = zc_trace_open(u->paths, u->npaths, &to, &t, err,
                                sizeof(err))))
            die(trace_content_status(rc), "%s", err);
        u->read_as = xstrdup(zc_trace_format(t));
        if (!u->content_set) {
            rc = trace_content_default(t, u->paths[0], u->content_buf,
                                       sizeof(u->content_buf));
            if (rc < 0)
                die(2, "%s: the pack's path is too long", u->paths[0]);
            if (rc > 0)
                u->content = u->content_buf;
        }
        zc_trace_close(t);
        if ((rc = zc_content_open(u->content, o.page_size, &c, err,
                                  sizeof(err)))) {
            if (u->origin) /* the manifest's content= */
                die(trace_content_status(rc), "%s: content=%s: %s", u->origin,
                    u->content, err);
            die(trace_content_status(rc),
                u->content_set ? "--content: %s" : "%s", err);
        }
        rc = trace_content_check_each(u->paths, u->npaths, &to, c, msg,
                                      sizeof(msg));
        zc_content_close(c);
        if (rc)
            die(trace_content_status(rc), "%s", msg);
    }
}

/* Each trace's plot prefix: --plot's for one trace, PREFIX-NAME for
 * several (NAME its file name; PREFIX-N-NAME where two share one). */
static void plot_prefixes(void)
{
    for (size_t i = 0; o.plot && i < nunits; i++) {
        const char *base = strrchr(units[i].paths[0], '/');
        bool twice = false;
        base = base ? base + 1 : units[i].paths[0];
        for (size_t k = 0; k < nunits && nunits > 1; k++) {
            const char *b = strrchr(units[k].paths[0], '/');
            twice |= k != i && !strcmp(b ? b + 1 : units[k].paths[0], base);
        }
        int n;
        if (nunits == 1)
            n = snprintf(units[i].plot, sizeof(units[i].plot), "%s", o.plot);
        else if (twice)
            n = snprintf(units[i].plot, sizeof(units[i].plot), "%s-%zu-%s",
                         o.plot, i + 1, base);
        else
            n = snprintf(units[i].plot, sizeof(units[i].plot), "%s-%s",
                         o.plot, base);
        if (n > PLOT_PREFIX_MAX)
            die(2, "--plot %s: with %s's name, more than " PLOT_STR(
                       PLOT_PREFIX_MAX) " bytes",
                o.plot, units[i].paths[0]);
    }
}

/* No plot file over an input: each trace's prefix against every input. */
static void refuse_plot_clashes(void)
{
    static const char *const files[] = {
        ".csv", ".dat", ".gp", ".png", ".svg", "-adaptive.csv",
        "-adaptive.gp", "-adaptive.png", "-adaptive.svg"};

    for (size_t i = 0; o.plot && i < nunits; i++) {
        const struct unit *u = &units[i];
        for (size_t k = 0; k < nunits; k++)
            trace_refuse_clash("--plot", u->plot, files, 9, units[k].paths,
                               units[k].npaths,
                               units[k].is_ops ? NULL : units[k].content);
        for (size_t r = u->nstatic; u->n - u->nstatic > 1 && r < u->n; r++) {
            /* each adaptive row's plot files too */
            static const char *const ext[] = {"csv", "gp", "png", "svg"};
            char suffix[4][64];
            const char *const sp[4] = {suffix[0], suffix[1], suffix[2],
                                       suffix[3]};
            for (int e = 0; e < 4; e++)
                snprintf(suffix[e], sizeof(suffix[e]), "-adaptive-%zu.%s",
                         r - u->nstatic + 1, ext[e]);
            for (size_t k = 0; k < nunits; k++)
                trace_refuse_clash("--plot", u->plot, sp, 4, units[k].paths,
                                   units[k].npaths,
                                   units[k].is_ops ? NULL : units[k].content);
        }
    }
}

/* ---- the rows and their works ------------------------------------------ */

static char *pcs[MAX_LIST], *caps[MAX_LIST], *shares[MAX_LIST];
static size_t npc, ncap, nshare;

/* The lists, split and checked once for every trace. */
static void split_lists(void)
{
    if (o.share_list)
        nshare = split_list(o.share_list, shares, true, "--share");
    if (o.mrc_list) {
        char *sizes[MAX_LIST];
        o.nmrc = split_list(o.mrc_list, sizes, true, "--mrc");
        for (size_t i = 0; i < o.nmrc; i++)
            o.mrc_pages[i] = size_arg(sizes[i], true, "--mrc");
    }
    if (!o.memory) {
        npc = o.pc_list ? split_list(o.pc_list, pcs, true, "--page-cache") : 0;
        ncap = o.cap_list ? split_list(o.cap_list, caps, true, "--capacity") : 0;
        if (!ncap) {
            caps[0] = o.zcap;
            ncap = 1;
        }
        if (!units[0].is_ops && !npc)
            die(2, "%s", "--page-cache LIST is needed: the page-cache sizes "
                         "to model (op streams alone take none)");
    }
}

/* The adaptive rows of the trace being made: one per controller and
 * --set combination, a zcache made for all of M whose share the
 * controller sets. */
static void add_adaptive_rows(uint64_t m)
{
    char capstr[32]; /* add_job() copies it */

    snprintf(capstr, sizeof(capstr), "%" PRIu64, m);
    for (int c = 0; c < o.nctl; c++) {
        size_t first = nrows;
        /* "adaptive" for the model, "adaptive:NAME" for another */
        char name[32];
        snprintf(name, sizeof(name), "adaptive%s%s", o.ctl[c] ? ":" : "",
                 o.ctl[c] ? zc_adapt_controller_name(o.ctl[c]) : "");
        add_jobs(m / o.page_size, NULL, capstr, -1);
        for (size_t i = first; i < nrows; i++) {
            char *l = rows[i].label;
            size_t nl = strlen(name), nc = strlen(capstr);
            rows[i].adaptive = true;
            rows[i].controller = o.ctl[c];
            /* the label starts with the capacity: the name replaces it
             * (cut to fit) */
            if (strlen(l) - nc + nl >= sizeof(rows[i].label))
                l[sizeof(rows[i].label) - 1 - nl + nc] = '\0';
            memmove(l + nl, l + nc, strlen(l + nc) + 1);
            memcpy(l, name, nl);
        }
    }
}

/* The rows of trace u (the last one added to units). */
static void add_unit_rows(struct unit *u)
{
    u->first = nrows;
    if (o.share_list) {
        uint64_t m = size_arg(o.memory, false, "--memory");
        for (size_t i = 0; i < nshare; i++) {
            uint64_t cap = share_cap(m, shares[i]);
            uint64_t pc = (m - cap) / o.page_size;
            char capstr[32]; /* add_job() copies it */
            if (cap > ZC_CAPACITY_MAX)
                die(2,
                    "--memory %s --share: a zcache of %" PRIu64
                    " bytes is more than the library's largest, %zu (15 GiB)",
                    o.memory, cap, (size_t)ZC_CAPACITY_MAX);
            snprintf(capstr, sizeof(capstr), "%" PRIu64, cap);
            add_jobs(pc, NULL, cap ? capstr : NULL, share_of(shares[i]));
        }
    }
    if (o.memory) {
        u->nstatic = nrows - u->first;
        if (o.adaptive)
            add_adaptive_rows(size_arg(o.memory, false, "--memory"));
    } else if (u->is_ops) {
        for (size_t c = 0; c < ncap; c++)
            add_jobs(0, u->paths[0], cap_of(caps[c]), 0);
        u->nstatic = nrows - u->first;
    } else {
        for (size_t p = 0; p < npc; p++) {
            uint64_t pc = size_arg(pcs[p], true, "--page-cache");
            if (pc > ZC_REPLAY_PAGES_MAX)
                die_too_many_pages("--page-cache", pcs[p]);
            for (size_t c = 0; c < ncap; c++)
                add_jobs(pc, NULL, cap_of(caps[c]), 0);
        }
        u->nstatic = nrows - u->first;
    }
    u->n = nrows - u->first;
}

/* Every trace's rows, counted first (MAX_ROWS), in the order of the
 * traces. */
static void make_all_rows(void)
{
    uint64_t per = count_rows(caps, ncap, units[0].is_ops ? 1 : npc, shares,
                              nshare);
    size_t n = nunits; /* at most MAX_TRACES: per * n does not wrap */

    if (o.adaptive) {
        uint64_t m = size_arg(o.memory, false, "--memory");
        if (m > ZC_CAPACITY_MAX)
            die(2,
                "--memory %s --adaptive: the zcache is made for all of "
                "M, and the library's largest is %zu bytes (15 GiB)",
                o.memory, (size_t)ZC_CAPACITY_MAX);
        if (!o.nctl)
            o.ctl[o.nctl++] = o.adapt.controller;
        o.adapt.memory_bytes = m;
        if (!o.adapt.disk_ns)
            o.adapt.disk_ns = o.prices.disk_ns;
        if (!o.adapt.put_ns)
            o.adapt.put_ns = o.prices.put_ns;
        if (!o.adapt.get_ns)
            o.adapt.get_ns = o.prices.get_ns;
    }
    make_rows(per > MAX_ROWS ? per : per * n);
    for (making = 0; making < n; making++)
        add_unit_rows(&units[making]);
}

/* The works: a trace's static rows by page-cache size (a group: one model
 * pass), each adaptive row alone, an op stream's rows together. */
static void make_works(void)
{
    if (!(works = calloc(nrows ? nrows : 1, sizeof(*works))))
        die(1, "%s", "out of memory");
    for (size_t u = 0; u < nunits; u++) {
        const struct unit *un = &units[u];
        size_t first = nworks, end = un->first + un->nstatic;
        if (un->is_ops && un->n)
            works[nworks++] = (struct work){WORK_OPS, u, un->first, un->n, 0};
        for (size_t i = un->first; !un->is_ops && i < end;) {
            size_t n = 1;
            while (i + n < end && rows[i + n].pc_pages == rows[i].pc_pages)
                n++;
            works[nworks++] = (struct work){WORK_GROUP, u, i, n, 0};
            i += n;
        }
        for (size_t i = end; i < un->first + un->n; i++)
            works[nworks++] = (struct work){WORK_ADAPTIVE, u, i, 1, 0};
        if (nworks > first)
            works[first].curve = true;
    }
}

static char **free_given; /* main()'s copy of argv */

/* Everything main() made, at its end. */
static void free_all(void)
{
    for (char **g = free_given; g && *g; g++)
        free(*g);
    free(free_given);
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].epochs);
    free(rows);
    free(works);
    zc_memo_destroy(memo);
}

int main(int argc, char **argv)
{
    int status = 0;
    cli_init(NAME, NULL);

    /* --run-job DIR N and --merge DIR take the plan's arguments */
    if (argc > 1 && (!strcmp(argv[1], "--run-job") || !strcmp(argv[1], "--merge")))
        plan_command(&argc, &argv);
    /* the lists are split in place: the plan keeps them as given */
    char **given = calloc((size_t)argc + 1, sizeof(*given));
    if (!given)
        die(1, "%s", "out of memory");
    for (int i = 0; i < argc; i++)
        given[i] = xstrdup(argv[i]);
    parse_args(argc, argv);
    free_given = given;
    collect_units();
    for (size_t i = 0; i < nunits; i++)
        setup_unit(&units[i], i);
    split_lists();
    make_all_rows();
    plot_prefixes();
    refuse_plot_clashes();
    make_works();
    if (o.jobs > 64)
        o.jobs = 64;
    if (o.plan_dir) {
        plan_write(o.plan_dir, argc, given);
        free_all();
        return outfile_stdout_close(NAME);
    }
    if (o.merge_dir) {
        plan_load_all(o.merge_dir);
    } else {
        const struct work **ws;
        size_t n = o.run_dir ? 1 : nworks;
        if (o.run_dir && o.run_job >= nworks)
            die(2, "--run-job %s %zu: the plan has jobs 0 to %zu", o.run_dir,
                o.run_job, nworks - 1);
        if (o.run_dir)
            plan_check(o.run_dir); /* before the work, not after it */
        if (!(ws = malloc(n * sizeof(*ws))))
            die(1, "%s", "out of memory");
        for (size_t i = 0; i < n; i++)
            ws[i] = &works[o.run_dir ? o.run_job : i];
        if (o.memo_mb && zc_memo_create(o.memo_mb << 20, &memo))
            die(1, "%s", "out of memory");
        double t0 = now_s();
        run_works(ws, n);
        free(ws);
        if (o.run_dir) {
            status = plan_save_job(o.run_dir, o.run_job, now_s() - t0);
            if (status)
                report_failures(works[o.run_job].first, works[o.run_job].n);
            free_all();
            return status;
        }
    }
    if ((status = report_failures(0, nrows))) {
        free_all();
        return status;
    }
    report_output();
    free_all();
    return outfile_stdout_close(NAME);
}
