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
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "statsout.h"
#include "plot.h"
#include "split_log.h"
#include "trace_content.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-sweep"
#define MAX_LIST 64
#define MAX_SETS 8
/* The most rows one sweep makes: every row is a cache in memory and a
 * replay of the trace, and the lists' cross product grows fast (64 values
 * in each of four lists are 16.7 M rows).  Counted before any is made. */
#define MAX_ROWS 100000

struct job {
    uint64_t pc_pages;
    const char *ops;    /* the stream to play */
    char spec[512];     /* the zcache spec; "" = off */
    double share;       /* memory-split mode: the zcache's share, % */
    uint64_t cap_bytes; /* the zcache's capacity, 0: off */
    char group[256];    /* the spec without its capacity: a plot's line */
    char label[256];    /* what this row varies: capacity and --set values */
    zc_replay_stats st; /* results */
    zc_stats zs;
    bool have_zs;
    char config[512]; /* the zcache's resolved configuration */
    zc_cache *zc; /* while its group runs (lockstep) */
    char compressor[32];
    zc_player *player;
    int rc;
    char err[1024];
    bool adaptive;          /* a run of the controller over all of M */
    unsigned controller;    /* its zc_adapt_options.controller */
    zc_adapt_epoch *epochs; /* its split over time */
    size_t nepochs;
};

static struct {
    const char *format, *content, *output, *zbase, *memory, *plot;
    char zcap[32]; /* without --capacity: the rows' capacity ("0": none) */
    char *mrc_list;   /* page-cache sizes to print the LRU curve at */
    const char *model; /* page-cache model (NULL: lru) */
    uint64_t ra_kb;    /* --read-ahead-kb */
    bool ra_set;
    zc_prices prices; /* --disk-latency and --cpu-price (0: measured) */
    uint64_t put_ns, get_ns; /* --cpu-price: a compression's and a
                                decompression's fixed cost; 0: measured */
    uint64_t memo_mb; /* the compression memo's size, MiB; 0: none */
    size_t page_size;
    char *pc_list, *cap_list, *share_list;
    char *set_key[MAX_SETS], *set_vals[MAX_SETS];
    char *set_v[MAX_SETS][MAX_LIST]; /* each --set list, split once */
    size_t set_n[MAX_SETS];
    bool set_cap[MAX_SETS]; /* the key is the capacity (or an alias) */
    int nsets, jobs;
    const char **traces;
    size_t ntraces;
    bool adaptive, content_set;
    zc_adapt_options adapt;
    unsigned ctl[3]; /* --adaptive=LIST: the controllers, in order */
    int nctl;        /* 0: --adapt's (the model by default) */
} o = {.content = "synth",
       .output = "text",
       .zbase = "",
       .page_size = 4096,
       .prices = {.disk_ns = 100000},
       .memo_mb = 1024};

static struct job *jobs;
static zc_memo *memo; /* shared: each distinct content compressed once */
static size_t njobs, maxjobs, next_job;
static size_t nstatic; /* jobs[0..nstatic) are static; the rest adaptive */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;



static void usage(FILE *f)
{
    fprintf(f, "usage: " NAME " [OPTIONS] TRACE...\n"
               "\n"
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
               "PREFIX.svg\n"               "  --help, --version\n"
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

static uint64_t size_arg(const char *s, bool pages, const char *what)
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

static size_t split_list(char *list, char **out, bool ranges,
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
            "--set",       "--share",    "--zcache"};
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
    if (!o.ntraces)
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

/* ---- lockstep: one page-cache model, many caches ------------------------ */

/*
 * For a block trace, every configuration of one page-cache size sees the
 * same op stream: the model runs once and its ops fan out to every row's
 * player (zc_fanout: in batches, over --jobs threads, each distinct
 * content compressed once into the shared memo).
 */
/* Run the configurations group[n] (one page-cache size) in lockstep. */
static void run_group(uint64_t pc_pages, struct job **group, size_t n,
                      zc_mrc *mrc)
{
    zc_trace_options to = {.format = o.format, .page_size = o.page_size};
    zc_content *content = NULL;
    zc_replay *r;
    zc_trace *t;
    zc_request q = {0};
    char err[512];
    bool checked = false, need_content = false;
    zc_fanout *fan;
    int rc;

    if (zc_fanout_create(o.page_size, o.jobs, memo, &fan))
        die(1, "%s", "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct job *j = group[i];
        if (open_cache(j, &j->zc))
            continue;
        if (zc_player_create(j->zc, &j->player) ||
            zc_fanout_add(fan, j->player, j->zc))
            die(1, "%s", "out of memory");
    }
    /* contents only for puts into a zcache: none when no row has one */
    for (size_t i = 0; i < n; i++)
        need_content |= group[i]->zc != NULL;
    if (need_content &&
        (rc = zc_content_open(o.content, o.page_size, &content, err,
                              sizeof(err))))
        die(trace_content_status(rc), "--content: %s", err);
    if ((rc = zc_trace_open(o.traces, o.ntraces, &to, &t, err, sizeof(err))))
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
    if (!rc && (rc = trace_model_setup(r, t, o.traces[0], o.model, o.ra_set,
                                       o.ra_kb, err, sizeof(err))) == -1)
        die(2, "%s", err);
    if (rc || zc_replay_sink(r, zc_fanout_sink, fan))
        die(1, "%s", "cannot set up the page-cache model");
    while ((rc = zc_trace_next(t, &q)) == 1) {
        if (q.ino && !checked && content) {
            checked = true;
            if (trace_content_check(content, o.content, &q, o.page_size, err,
                                    sizeof(err)))
                die(2, "%s", err);
        }
        if ((rc = zc_replay_request(r, &q))) {
            char msg[1024];
            trace_content_explain(content, o.content, &q, o.page_size, rc, err,
                                  sizeof(err));
            snprintf(msg, sizeof(msg), "%s: %s", o.traces[0], err);
            die(trace_content_status(rc), "%s", msg);
        }
        if (mrc && zc_mrc_request(mrc, &q, o.page_size))
            die(1, "%s", "out of memory");
    }
    if (rc < 0)
        die(trace_content_status(rc), "%s", zc_trace_error(t));
    zc_fanout_flush(fan);
    /* the requests are the model's (one pass for the group); the rest is
     * each row's player's */
    zc_replay_stats model_st;
    zc_replay_stats_get(r, &model_st);
    for (size_t i = 0, k = 0; i < n; i++) {
        struct job *j = group[i];
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
        }
        zc_player_destroy(j->player);
        zc_cache_destroy(j->zc);
        j->player = NULL;
        j->zc = NULL;
    }
    zc_fanout_destroy(fan);
    zc_replay_destroy(r);
    zc_trace_close(t);
    zc_content_close(content);
}

/* Every group of jobs (by page-cache size, in order), in lockstep. */
static void run_lockstep(zc_mrc *mrc)
{
    struct job **group = malloc(njobs * sizeof(*group));

    if (!group)
        die(1, "%s", "out of memory");
    for (size_t i = 0; i < nstatic;) {
        size_t n = 0;
        while (i + n < nstatic && jobs[i + n].pc_pages == jobs[i].pc_pages) {
            group[n] = &jobs[i + n];
            n++;
        }
        run_group(jobs[i].pc_pages, group, n, i ? NULL : mrc);
        i += n;
    }
    free(group);
}

/* ---- adaptive rows ------------------------------------------------------ */

static void *worker(void *arg);

/* One adaptive row: the whole pipeline with the controller, on its own
 * (no memo: its CPU is its own). */
static void adapt_one(struct job *j)
{
    zc_trace_options to = {.format = o.format, .page_size = o.page_size};
    zc_config cfg = zc_config_default();
    zc_content *content = NULL;
    zc_replay *r = NULL;
    zc_trace *t = NULL;
    zc_cache *zc = NULL;
    zc_request q = {0};
    const zc_adapt_epoch *e;
    zc_adapt_options ao = o.adapt;
    bool checked = false;
    int rc;

    ao.controller = j->controller;
    cfg.page_size = o.page_size;
    if (zc_config_parse_error(&cfg, j->spec, j->err, sizeof(j->err))) {
        j->rc = 2;
        return;
    }
    zc_config_format(&cfg, j->config, sizeof(j->config));
    if ((rc = zc_cache_create(&cfg, &zc))) {
        cache_error(j, &cfg, rc);
        goto out;
    }
    if ((rc = zc_content_open(o.content, o.page_size, &content, j->err,
                              sizeof(j->err))) ||
        (rc = zc_trace_open(o.traces, o.ntraces, &to, &t, j->err,
                            sizeof(j->err))) ||
        (rc = zc_replay_create(j->pc_pages, o.page_size, zc, content, &r)) ||
        (rc = trace_model_setup(r, t, o.traces[0], o.model, o.ra_set,
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
            if (trace_content_check(content, o.content, &q, o.page_size, j->err,
                                    sizeof(j->err))) {
                j->rc = 2;
                goto out;
            }
        }
        if ((rc = zc_replay_request(r, &q))) {
            char msg[512];
            trace_content_explain(content, o.content, &q, o.page_size, rc, msg,
                                  sizeof(msg));
            snprintf(j->err, sizeof(j->err), "%s: %s", o.traces[0], msg);
            j->rc = trace_content_status(rc);
            goto out;
        }
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
out:
    zc_replay_destroy(r);
    zc_trace_close(t);
    zc_content_close(content);
    zc_cache_destroy(zc);
}

/* The adaptive rows, one thread each up to --jobs. */
static void run_adaptive(void)
{
    pthread_t th[64];
    int n = (int)(njobs - nstatic) < o.jobs ? (int)(njobs - nstatic) : o.jobs;

    next_job = nstatic;
    for (int t = 0; t < n; t++)
        if (pthread_create(&th[t], NULL, worker, NULL))
            die(1, "%s", "cannot start a thread");
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
}

/* ---- playing ------------------------------------------------------------ */

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
    }
    zc_player_destroy(p);
    zc_ops_close(in);
    zc_cache_destroy(zc);
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        struct job *j;
        pthread_mutex_lock(&lock);
        j = next_job < njobs ? &jobs[next_job++] : NULL;
        pthread_mutex_unlock(&lock);
        if (!j)
            return NULL;
        if (j->adaptive)
            adapt_one(j);
        else
            play(j);
    }
}

/* ---- the configurations ----------------------------------------------- */

static void add_job(uint64_t pc, const char *ops, const char *cap,
                    const int *pick, double share)
{
    struct job *j;
    size_t n = 0;

    assert(njobs < maxjobs); /* count_rows() counted it */
    j = &jobs[njobs++];
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
    uint64_t combos = 1, rows = 0;

    for (int s = 0; s < o.nsets; s++)
        combos *= o.set_n[s];
    if (o.memory) {
        uint64_t m = size_arg(o.memory, false, "--memory");
        for (size_t i = 0; i < nshare; i++)
            rows += share_cap(m, shares[i]) ? combos : 1;
        return rows + (o.adaptive ? combos * (uint64_t)(o.nctl ? o.nctl : 1)
                                  : 0);
    }
    for (size_t c = 0; c < ncap; c++)
        rows += cap_of(caps[c]) ? combos : 1;
    return rows * npc;
}

/* Room for every row, once counted and found within MAX_ROWS. */
static void make_jobs(uint64_t rows)
{
    char msg[256];

    if (rows > MAX_ROWS) {
        snprintf(msg, sizeof(msg),
                 "%" PRIu64 " rows (the cross product of the lists): more "
                 "than a sweep's limit, %d",
                 rows, MAX_ROWS);
        die(2, "%s", msg);
    }
    jobs = calloc(rows ? (size_t)rows : 1, sizeof(*jobs));
    if (!jobs)
        die(1, "%s", "out of memory");
    maxjobs = (size_t)rows;
}

/* ---- output ------------------------------------------------------------- */

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* The rates, each defined once and all of accesses (README: Sweeps):
 * pc_hit% the page cache held the page; zc_hit% the zcache did (a read it
 * served, or a write that found a copy there); in_mem% either tier, the
 * sum of the two. */
static double pc_rate(const zc_replay_stats *st)
{
    return pct(st->pc_hits, st->accesses);
}

static double zc_rate(const zc_replay_stats *st)
{
    return pct(st->resident_hits - st->pc_hits, st->accesses);
}

static double mem_rate(const zc_replay_stats *st)
{
    return pct(st->resident_hits, st->accesses);
}

static double density(const zc_stats *z)
{
    return z->mem_used_total
               ? (double)z->compr_data_size / (double)z->mem_used_total
               : 0.0;
}

/* The cost model of a row (zc_cost_of): in a memory split, what counts is
 * the disk reads against the split without a zcache (share 0), since a
 * split takes its memory from the page cache. */
static const struct job *baseline(void)
{
    for (size_t i = 0; o.memory && i < njobs; i++)
        if (!jobs[i].cap_bytes && !jobs[i].adaptive)
            return &jobs[i];
    return NULL; /* no split without a zcache: zcache hits are the saving */
}

static zc_cost cost_of(const struct job *j)
{
    const struct job *b = baseline();
    double saved = b ? (double)b->st.disk_reads - (double)j->st.disk_reads
                     : (double)j->st.zc_hits;

    return zc_cost_of(&j->zs, saved, &o.prices);
}

/* What every row describes: its traces (one field, separated by spaces),
 * their format (resolved: never "auto") and the content source. */
static const char *trace_format = "";

static const char *traces_joined(void)
{
    static char *all;

    if (!all) {
        size_t len = 1, at = 0;
        for (size_t i = 0; i < o.ntraces; i++)
            len += strlen(o.traces[i]) + 1;
        if (!(all = malloc(len)))
            die(1, "%s", "out of memory");
        for (size_t i = 0; i < o.ntraces; i++)
            at += (size_t)sprintf(all + at, "%s%s", i ? " " : "", o.traces[i]);
        all[at] = '\0';
    }
    return all;
}

static const char *content_name(void)
{
    return trace_format && !strcmp(trace_format, "zct") ? "(in the stream)"
                                                         : o.content;
}

/* The page-cache model's name (a registered one: no escaping needed). */
static const char *model_name(void)
{
    return o.model ? o.model : "lru";
}

static void csv(FILE *f, const zc_mrc *mrc)
{
    fprintf(f, "trace,format,content,page_cache_pages,page_cache_model,"
               "zcache_spec,capacity_bytes,share_percent,adaptive,"
               "controller,zcache_config");
    out_replay_csv_header(f);
    fprintf(f, ",mrc_pc_hits");
    out_zcache_csv_header(f);
    fprintf(f, ",compress_ms,wasted_ms,decompress_ms,cpu_ms,disk_latency_us,"
               "saved_ms\n");
    for (size_t i = 0; i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j);
        out_csv_string(f, traces_joined());
        fprintf(f, ",%s,", trace_format);
        out_csv_string(f, content_name());
        fputc(',', f);
        fprintf(f, "%" PRIu64 ",%s,", j->pc_pages, model_name());
        out_csv_string(f, j->spec[0] ? j->spec : "off");
        fprintf(f, ",%" PRIu64 ",", j->cap_bytes);
        if (!j->adaptive && o.memory)
            fprintf(f, "%g", j->share);
        fprintf(f, ",%s,%s,", j->adaptive ? "true" : "false",
                j->adaptive ? zc_adapt_controller_name(j->controller) : "");
        out_csv_string(f, j->have_zs ? j->config : "off");
        out_replay_csv(f, &j->st);
        fprintf(f, ",%" PRIu64, mrc ? zc_mrc_hits(mrc, j->pc_pages) : 0);
        out_zcache_csv(f, j->have_zs ? &j->zs : NULL);
        fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.1f,%.3f\n", c.compress_ms, c.wasted_ms,
                c.decompress_ms, c.cpu_ms, (double)o.prices.disk_ns / 1e3, c.saved_ms);
    }
}

/* The --mrc curve's sizes, checked: their count, into sizes[]. */
static size_t mrc_sizes(uint64_t *pages, char **sizes)
{
    size_t n = split_list(o.mrc_list, sizes, true, "--mrc");

    for (size_t i = 0; i < n; i++)
        pages[i] = size_arg(sizes[i], true, "--mrc");
    return n;
}

static void json(const zc_mrc *mrc)
{
    /* with --mrc: {"rows": [...], "mrc": {...}}; else the rows' array */
    if (o.mrc_list && mrc)
        printf("{\"rows\":");
    printf("[");
    for (size_t i = 0; i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j);
        printf("%s\n {\"trace\":", i ? "," : "");
        out_json_string(stdout, traces_joined());
        printf(",\"format\":\"%s\",\"content\":", trace_format);
        out_json_string(stdout, content_name());
        printf(",\"page_cache_pages\":%" PRIu64
               ",\"page_cache_model\":\"%s\",\"zcache_spec\":",
               j->pc_pages, model_name());
        out_json_string(stdout, j->spec[0] ? j->spec : "off");
        printf(",\"capacity_bytes\":%" PRIu64 ",\"share_percent\":",
               j->cap_bytes);
        if (j->adaptive)
            printf("null,\"adaptive\":true,\"controller\":\"%s\"",
                   zc_adapt_controller_name(j->controller));
        else if (o.memory)
            printf("%g,\"adaptive\":false,\"controller\":null", j->share);
        else
            printf("null,\"adaptive\":false,\"controller\":null");
        printf(",\"zcache_config\":");
        out_json_string(stdout, j->have_zs ? j->config : "off");
        out_replay_json(stdout, &j->st);
        printf(",\"mrc_pc_hits\":%" PRIu64,
               mrc ? zc_mrc_hits(mrc, j->pc_pages) : 0);
        out_zcache_json(stdout, j->have_zs ? &j->zs : NULL);
        printf(",\"compress_ms\":%.3f,\"wasted_ms\":%.3f,"
               "\"decompress_ms\":%.3f,\"cpu_ms\":%.3f,"
               "\"disk_latency_us\":%.1f,\"saved_ms\":%.3f}",
               c.compress_ms, c.wasted_ms, c.decompress_ms, c.cpu_ms,
               (double)o.prices.disk_ns / 1e3, c.saved_ms);
    }
    printf("\n]");
    if (o.mrc_list && mrc) {
        char *sizes[MAX_LIST];
        uint64_t pages[MAX_LIST];
        size_t n = mrc_sizes(pages, sizes);
        printf(",\"mrc\":{\"accesses\":%" PRIu64 ",\"distinct_pages\":%" PRIu64
               ",\"curve\":[",
               zc_mrc_accesses(mrc), zc_mrc_distinct(mrc));
        for (size_t i = 0; i < n; i++)
            printf("%s{\"pages\":%" PRIu64 ",\"hits\":%" PRIu64 "}",
                   i ? "," : "", pages[i], zc_mrc_hits(mrc, pages[i]));
        printf("]}}");
    }
    printf("\n");
}

/* Whether static row k has the --set values of row j (a row without a
 * zcache goes with every one). */
static bool same_sets(const struct job *k, const struct job *j)
{
    const char *a = strchr(k->label, ' '), *b = strchr(j->label, ' ');

    return !k->spec[0] || !strcmp(a ? a : "", b ? b : "");
}

/* The static row of fewest disk reads, and of least cost: among those
 * with the --set values of row `like`, or all of them (NULL).  Row 0 is
 * share 0, which goes with every one. */
static size_t best_row(const struct job *like)
{
    size_t best = 0;

    for (size_t k = 1; k < nstatic; k++)
        if ((!like || same_sets(&jobs[k], like)) &&
            jobs[k].st.disk_reads < jobs[best].st.disk_reads)
            best = k;
    return best;
}

static size_t cheapest_row(const struct job *like)
{
    size_t cheapest = 0;

    for (size_t k = 1; k < nstatic; k++)
        if ((!like || same_sets(&jobs[k], like)) &&
            cost_of(&jobs[k]).saved_ms > cost_of(&jobs[cheapest]).saved_ms)
            cheapest = k;
    return cheapest;
}

static void table(void)
{
    size_t best = best_row(NULL);
    int w = 7; /* the zcache column: as wide as its widest label */

    for (size_t i = 0; i < njobs; i++)
        if ((int)strlen(jobs[i].label) > w)
            w = (int)strlen(jobs[i].label);
    if (*o.zbase)
        printf("every zcache: %s\n", o.zbase);
    printf("%-9s %-*s %8s %7s %7s %9s %7s %6s %7s %9s %9s %9s\n",
           o.memory ? "zc_share" : "pc_pages", w, "zcache", "accesses",
           "pc_hit%", "zc_hit%", "disk_reads", "in_mem%", "kept%", "density",
           "cpu_ms", "wasted_ms", "saved_ms");
    for (size_t i = 0; i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j);
        char first[32];
        if (j->adaptive)
            snprintf(first, sizeof(first), "adaptive");
        else if (o.memory)
            snprintf(first, sizeof(first), "%.1f%%", j->share);
        else if (j->ops)
            snprintf(first, sizeof(first), "-"); /* the stream's own */
        else
            snprintf(first, sizeof(first), "%" PRIu64, j->pc_pages);
        printf("%-9s %-*s %8" PRIu64 " %6.2f%% %6.2f%% %9" PRIu64
               " %6.2f%% %5.1f%% %7.3f %9.2f %9.2f %9.1f%s\n",
               first, w, j->spec[0] ? j->label : "off", j->st.accesses,
               pc_rate(&j->st), zc_rate(&j->st), j->st.disk_reads,
               mem_rate(&j->st),
               pct(j->st.zc_stored, j->st.zc_puts), density(&j->zs), c.cpu_ms,
               c.wasted_ms, c.saved_ms,
               o.memory && nstatic && i == best ? "  <- fewest disk reads"
                                                : "");
    }
    for (size_t i = nstatic; nstatic && i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j), cb;
        /* against the static rows of the same --set values (and "off") */
        size_t cheapest = cheapest_row(j);
        best = best_row(j);
        cb = cost_of(&jobs[cheapest]);
        printf("\n%s: %zu epochs; disk reads %.3f x the fewest of a static "
               "split (%.1f%%),\n  cost (disk reads x latency + cpu) %.3f x "
               "the least of one (%.1f%%)",
               j->label, j->nepochs,
               (double)j->st.disk_reads /
                   (double)(jobs[best].st.disk_reads ? jobs[best].st.disk_reads
                                                     : 1),
               jobs[best].share,
               ((double)j->st.disk_reads * (double)o.prices.disk_ns / 1e6 + c.cpu_ms) /
                   ((double)jobs[cheapest].st.disk_reads * (double)o.prices.disk_ns /
                        1e6 +
                    cb.cpu_ms),
               jobs[cheapest].share);
    }
    if (njobs > nstatic && (!o.adapt.put_ns || !o.adapt.get_ns))
        printf("\n(the controllers priced with the CPU each run measured: "
               "another run, or a busy\nmachine, may split differently; "
               "--cpu-price put=T,get=T makes them reproducible)");
    if (njobs > nstatic)
        printf("\n");
    printf("\npc_hit%%, zc_hit%%, in_mem%%: shares of accesses whose page "
           "the page cache held,\nthe zcache held, either held (in_mem%% = "
           "pc_hit%% + zc_hit%%);\nkept%%: puts the zcache stored; density: "
           "compressed bytes / arena bytes in use\nat the end; "
           "saved_ms: %s x %.0f us\nof disk latency - cpu_ms (compress, "
           "wasted on rejects, decompress; %s).\n",
           baseline() ? "disk reads fewer than at share 0" : "zcache hits",
           (double)o.prices.disk_ns / 1e3,
           o.prices.put_ns ? "fixed prices, --cpu-price" : "thread CPU time measured");
}

/* PREFIX.csv, PREFIX.dat and PREFIX.gp, then gnuplot if it is there. */
/* A row's --set combination: its label after the capacity ("" if none). */
static const char *combo_of(const struct job *j)
{
    const char *sp = strchr(j->label, ' ');

    return sp ? sp + 1 : "";
}

static void plot(const zc_mrc *mrc)
{
    char path[3][1024], msg[1300], name[256], mem[64];
    outfile out[3] = {{0}};
    int bad = 0;
    FILE *f;
    size_t ngroups = 0, ncombos = 0;
    double lo = 100, hi = 0; /* the shares swept */

    snprintf(path[0], sizeof(path[0]), "%s.csv", o.plot);
    snprintf(path[1], sizeof(path[1]), "%s.dat", o.plot);
    snprintf(path[2], sizeof(path[2]), "%s.gp", o.plot);
    if (!(f = outfile_open(&out[0], path[0])))
        goto fail;
    csv(f, mrc);
    if (outfile_close(&out[0]))
        goto fail;
    bad = 1;
    if (!(f = outfile_open(&out[1], path[1])))
        goto fail;
    if (o.memory) {
        /* One block per --set combination: its static shares (the share
         * without a zcache, which all combinations share, first); then
         * one block per adaptive row (no share of its own): its disk
         * reads as a level across the shares swept. */
        bool any_zc = false;
        for (size_t i = 0; i < njobs; i++)
            any_zc |= jobs[i].share >= 0 && jobs[i].cap_bytes;
        for (size_t i = 0; i < njobs; i++) {
            bool seen = false;
            if (jobs[i].share < 0 || (!jobs[i].cap_bytes && any_zc))
                continue;
            for (size_t k = 0; k < i; k++)
                seen |= jobs[k].share >= 0 && jobs[k].cap_bytes &&
                        !strcmp(combo_of(&jobs[k]), combo_of(&jobs[i]));
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ncombos++ ? "\n\n" : "",
                    *combo_of(&jobs[i]) ? combo_of(&jobs[i]) : "memory split");
            for (size_t k = 0; k < njobs; k++) {
                const struct job *j = &jobs[k];
                if (j->share < 0 ||
                    (j->cap_bytes && strcmp(combo_of(j), combo_of(&jobs[i]))))
                    continue;
                if (j->share < lo)
                    lo = j->share;
                if (j->share > hi)
                    hi = j->share;
                fprintf(f, "%.2f %" PRIu64 " %.3f %.3f %.3f\n", j->share,
                        j->st.disk_reads, pc_rate(&j->st), zc_rate(&j->st),
                        mem_rate(&j->st));
            }
        }
        ngroups = ncombos;
        for (size_t i = 0; i < njobs; i++)
            if (jobs[i].share < 0) {
                fprintf(f, "\n\n\"adaptive%s%s\"\n",
                        *combo_of(&jobs[i]) ? ", " : "", combo_of(&jobs[i]));
                fprintf(f, "%.2f %" PRIu64 "\n%.2f %" PRIu64 "\n", lo,
                        jobs[i].st.disk_reads, hi, jobs[i].st.disk_reads);
                ngroups++;
            }
    } else {
        /* One block per line of the plot: a group's rows by capacity, its
         * page cache's row without a zcache first. */
        for (size_t i = 0; i < njobs; i++) {
            bool seen = false;
            if (!jobs[i].cap_bytes)
                continue;
            for (size_t k = 0; k < i; k++)
                seen |=
                    jobs[k].cap_bytes && !strcmp(jobs[k].group, jobs[i].group);
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ngroups++ ? "\n\n" : "", jobs[i].group);
            for (size_t k = 0; k < njobs; k++) {
                const struct job *j = &jobs[k];
                if ((j->cap_bytes && strcmp(j->group, jobs[i].group)) ||
                    j->pc_pages != jobs[i].pc_pages || (!j->cap_bytes && k > i))
                    continue;
                fprintf(f, "%.4f %.3f %.3f %.3f\n",
                        (double)j->cap_bytes / 1048576.0,
                        pc_rate(&j->st), zc_rate(&j->st), mem_rate(&j->st));
            }
        }
    }
    if (outfile_close(&out[1]))
        goto fail;
    bad = 2;
    if (!(f = outfile_open(&out[2], path[2])))
        goto fail;
    plot_header(f, NAME, o.plot, path[1]);
    plot_traces_text(name, sizeof(name), o.traces, o.ntraces);
    plot_text(mem, sizeof(mem), o.memory ? o.memory : "");
    fprintf(f, "set datafile commentschars '#'\nset key below\n"
               "set grid\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, o.plot, t);
        if (o.memory) {
            fprintf(f,
                    "set title '%s: memory split of %s, the zcache share'\n"
                    "set xlabel 'zcache share of memory (%%)'\n"
                    "set ylabel 'disk reads'\n"
                    "set xrange [%g:%g]\n",
                    name, mem, lo, hi > lo ? hi : lo + 1);
            if (ncombos == 1)
                /* one configuration: its disk reads and hit rates */
                fprintf(f,
                        "set y2label 'hit rate (%% of accesses)'\nset y2tics\n"
                        "plot '%s.dat' index 0 using 1:2 with linespoints "
                        "lw 2 lc 1 title 'disk reads', '' index 0 using 1:3 "
                        "axes x1y2 with lines lc 2 title 'page cache hits "
                        "(right axis)', '' index 0 using 1:4 axes x1y2 with "
                        "lines lc 3 title 'zcache hits (right axis)', '' "
                        "index 0 using 1:5 axes x1y2 with lines lc 4 title "
                        "'in memory (right axis)'",
                        o.plot);
            else
                /* several: their disk reads, one colour each */
                fprintf(f,
                        "plot for [i=0:%zu] '%s.dat' index i using 1:2 with "
                        "linespoints lw 2 lc i+1 title columnheader(1)",
                        ncombos - 1, o.plot);
            if (ngroups > ncombos)
                fprintf(f,
                        ", for [i=%zu:%zu] '' index i using 1:2 with lines "
                        "lw 2 dashtype 2 lc i-%zu+1 title "
                        "columnheader(1).' (disk reads)'",
                        ncombos, ngroups - 1, ncombos);
            fputc('\n', f);
        } else {
            fprintf(f, "set xlabel 'zcache capacity (MiB)'\n"
                       "set ylabel 'hits (%% of accesses)'\n");
            if (ngroups == 1) {
                /* one page cache: it goes in the title, and the three
                 * rates get three colours */
                char group[256];
                for (size_t i = 0; i < njobs; i++)
                    if (jobs[i].cap_bytes) {
                        plot_text(group, sizeof(group), jobs[i].group);
                        break;
                    }
                fprintf(f, "set title '%s, %s: hits against zcache size'\n",
                        name, group);
                if (!strcmp(trace_format, "zct")) {
                    /* an op stream's page cache is the recorded one: its
                     * hits are not played, only the zcache's */
                    fprintf(f,
                            "plot '%s.dat' index 0 using 1:3 with linespoints "
                            "lw 2 lc 2 title 'zcache hits'\n",
                            o.plot);
                    continue;
                }
                fprintf(f,
                        "plot '%s.dat' index 0 using 1:4 with linespoints "
                        "lw 2 lc 1 title 'both tiers (in memory)', '' index 0 "
                        "using 1:3 with linespoints lw 2 dashtype 2 lc 2 "
                        "title 'zcache', '' index 0 using 1:2 with lines lw 2 "
                        "dashtype 3 lc 3 title 'page cache'\n",
                        o.plot);
                continue;
            }
            /* one colour per configuration, named once; the line's
             * style says the rate (the key's last three entries) */
            fprintf(f,
                    "set title '%s: hits against zcache size'\n"
                    "plot for [i=0:%zu] '%s.dat' index i using 1:4 with "
                    "linespoints lw 2 lc i+1 title columnheader(1), "
                    "for [i=0:%zu] '' index i using 1:3 with lines dashtype 2 "
                    "lc i+1 notitle, "
                    "for [i=0:%zu] '' index i using 1:2 with lines dashtype 3 "
                    "lc i+1 notitle, "
                    "NaN with lines lw 2 lc 'black' title 'solid: both tiers', "
                    "NaN with lines dashtype 2 lc 'black' title 'dashed: "
                    "zcache', NaN with lines dashtype 3 lc 'black' title "
                    "'dotted: page cache'\n",
                    name, ngroups ? ngroups - 1 : 0, o.plot,
                    ngroups ? ngroups - 1 : 0, ngroups ? ngroups - 1 : 0);
        }
    }
    if (outfile_close(&out[2]))
        goto fail;
    plot_run(NAME, o.plot);
    return;
fail:
    snprintf(msg, sizeof(msg), "cannot write %s: %s", path[bad],
             strerror(errno));
    for (int i = 0; i < 3; i++)
        outfile_discard(&out[i]);
    die(1, "%s", msg);
}

/* With several adaptive rows, PREFIX-adaptive: every row's split over
 * time on one graph, and the static splits of fewest disk reads and of
 * least cost. */
static void plot_together(void)
{
    size_t n = njobs - nstatic, best = best_row(NULL),
           cheapest = cheapest_row(NULL);
    const char **csvs = calloc(n, sizeof(*csvs)),
               **titles = calloc(n, sizeof(*titles));
    char *names = calloc(n, 1024), prefix[1024], line[2][64], label[256];
    const char *lt[2] = {line[0], line[1]};
    double ls[2];
    size_t nl = 0;

    if (!csvs || !titles || !names)
        die(1, "%s", "out of memory");
    plot_traces_text(label, sizeof(label), o.traces, o.ntraces);
    for (size_t i = 0; i < n; i++) {
        snprintf(names + i * 1024, 1024, "%s-adaptive-%zu.csv", o.plot,
                 i + 1);
        csvs[i] = names + i * 1024;
        titles[i] = jobs[nstatic + i].label;
    }
    snprintf(prefix, sizeof(prefix), "%s-adaptive", o.plot);
    if (nstatic) {
        snprintf(line[nl], sizeof(line[nl]),
                 "static %.1f%% (fewest disk reads)", jobs[best].share);
        ls[nl++] = jobs[best].share;
    }
    if (nstatic && cheapest != best) {
        snprintf(line[nl], sizeof(line[nl]), "static %.1f%% (least cost)",
                 jobs[cheapest].share);
        ls[nl++] = jobs[cheapest].share;
    }
    if (split_log_plot_together(NAME, prefix, label, o.memory, csvs,
                                titles, n, ls, lt, nl))
        exit(1);
    free(csvs);
    free(titles);
    free(names);
}

static void output(const zc_mrc *mrc)
{
    char label[256];

    plot_traces_text(label, sizeof(label), o.traces, o.ntraces);
    for (size_t i = nstatic; o.plot && i < njobs; i++) {
        char prefix[1024];
        snprintf(prefix, sizeof(prefix), "%s-adaptive%s%zu", o.plot,
                 njobs - nstatic > 1 ? "-" : "",
                 njobs - nstatic > 1 ? i - nstatic + 1 : 0);
        if (njobs - nstatic == 1)
            snprintf(prefix, sizeof(prefix), "%s-adaptive", o.plot);
        char what[512]; /* the memory, and the row's --set combination */
        snprintf(what, sizeof(what), "%s%s%s", o.memory,
                 *combo_of(&jobs[i]) ? ", " : "", combo_of(&jobs[i]));
        if (split_log_plot(NAME, prefix, label, what, jobs[i].epochs,
                           jobs[i].nepochs, o.page_size))
            exit(1);
    }
    if (o.plot && njobs - nstatic > 1)
        plot_together();
    if (o.plot && nstatic)
        plot(mrc);
    if (!strcmp(o.output, "csv"))
        csv(stdout, mrc);
    else if (!strcmp(o.output, "json"))
        json(mrc);
    else
        table();
}

/* The rows that failed, each message once (rows that failed alike are
 * one line: the first's zcache, and how many more); the last status. */
static int report_failures(void)
{
    int status = 0;

    for (size_t i = 0; i < njobs; i++) {
        size_t more = 0;
        bool said = false;
        if (!jobs[i].rc)
            continue;
        status = jobs[i].rc;
        for (size_t k = 0; k < i && !said; k++)
            said = jobs[k].rc && !strcmp(jobs[k].err, jobs[i].err);
        if (said)
            continue;
        for (size_t k = i + 1; k < njobs; k++)
            more += jobs[k].rc && !strcmp(jobs[k].err, jobs[i].err);
        fprintf(stderr, NAME ": %s: %s", jobs[i].spec[0] ? jobs[i].spec : "off",
                jobs[i].err);
        if (more)
            fprintf(stderr, " (and %zu more row%s)", more, more > 1 ? "s" : "");
        fputc('\n', stderr);
    }
    return status;
}

/* Everything main() made, at its end. */
static void free_all(zc_mrc *mrc)
{
    for (size_t i = 0; i < njobs; i++)
        free(jobs[i].epochs);
    free(jobs);
    zc_mrc_destroy(mrc);
    zc_memo_destroy(memo);
}

int main(int argc, char **argv)
{
    char *pcs[MAX_LIST], *caps[MAX_LIST], *shares[MAX_LIST];
    size_t npc = 0, ncap = 0, nshare = 0;
    pthread_t th[64];
    zc_mrc *mrc = NULL;
    bool is_ops = false;
    int status = 0;
    cli_init(NAME, NULL);

    parse_args(argc, argv);
    trace_refuse_non_regular(o.traces, o.ntraces);
    {
        unsigned char head[16];
        FILE *f = fopen(o.traces[0], "rb");
        size_t got = f ? fread(head, 1, sizeof(head), f) : 0;
        if (f)
            fclose(f);
        is_ops = zc_ops_sniff(head, got);
    }
    if (is_ops) {
        zc_ops_reader *r;
        char err[512];
        if (o.memory || o.pc_list || o.ntraces != 1 || o.mrc_list)
            die(2,
                "%s: an op stream has its page cache: only --capacity and "
                "--set vary (no --page-cache, --memory or --mrc)",
                o.traces[0]);
        if (zc_ops_open(o.traces[0], &r, err, sizeof(err)))
            die(2, "%s", err);
        o.page_size = zc_ops_page_size(r);
        zc_ops_close(r);
        trace_format = "zct";
    } else if (zc_mrc_create(&mrc)) {
        die(1, "%s", "out of memory");
    } else {
        /* the pack the trace names, if any, and whether the contents fit
         * the trace (never another recording's pack) */
        static char spec[4096];
        zc_trace_options to = {.format = o.format, .page_size = o.page_size};
        zc_trace *t;
        zc_content *c;
        char err[512];
        int rc;
        if ((rc = zc_trace_open(o.traces, o.ntraces, &to, &t, err,
                                sizeof(err))))
            die(trace_content_status(rc), "%s", err);
        trace_format = zc_trace_format(t);
        if (!o.content_set) {
            rc = trace_content_default(t, o.traces[0], spec, sizeof(spec));
            if (rc < 0)
                die(2, "%s: the pack's path is too long", o.traces[0]);
            if (rc > 0)
                o.content = spec;
        }
        char msg[1024];
        if ((rc = zc_content_open(o.content, o.page_size, &c, err,
                                  sizeof(err))))
            die(trace_content_status(rc), o.content_set ? "--content: %s" : "%s",
                err);
        zc_trace_close(t);
        if (o.plot) {
            /* no output over an input: the traces, the content's file */
            static const char *const files[] = {
                ".csv", ".dat", ".gp", ".png", ".svg", "-adaptive.csv",
                "-adaptive.gp", "-adaptive.png", "-adaptive.svg"};
            trace_refuse_clash("--plot", o.plot, files, 9, o.traces,
                               o.ntraces, o.content);
        }
        rc = trace_content_check_each(o.traces, o.ntraces, &to, c, msg,
                                      sizeof(msg));
        zc_content_close(c);
        if (rc)
            die(trace_content_status(rc), "%s", msg);
    }
    if (o.share_list)
        nshare = split_list(o.share_list, shares, true, "--share");
    if (!o.memory) {
        npc = o.pc_list ? split_list(o.pc_list, pcs, true, "--page-cache") : 0;
        ncap = o.cap_list ? split_list(o.cap_list, caps, true, "--capacity") : 0;
        if (!ncap) {
            caps[0] = o.zcap;
            ncap = 1;
        }
        if (!is_ops && !npc)
            die(2, "%s", "--page-cache LIST is needed");
    }
    make_jobs(count_rows(caps, ncap, is_ops ? 1 : npc, shares, nshare));
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
    if (o.share_list || o.adaptive) {
        nstatic = njobs;
        if (o.adaptive) {
            /* One adaptive row per --set combination: a zcache made for
             * all of M, whose share the controller sets. */
            uint64_t m = size_arg(o.memory, false, "--memory");
            char capstr[32]; /* add_job() copies it */
            if (m > ZC_CAPACITY_MAX)
                die(2,
                    "--memory %s --adaptive: the zcache is made for all of "
                    "M, and the library's largest is %zu bytes (15 GiB)",
                    o.memory, (size_t)ZC_CAPACITY_MAX);
            snprintf(capstr, sizeof(capstr), "%" PRIu64, m);
            if (!o.nctl)
                o.ctl[o.nctl++] = o.adapt.controller;
            for (int c = 0; c < o.nctl; c++) {
                size_t first = njobs;
                /* "adaptive" for the model, "adaptive:NAME" for another */
                char name[32];
                snprintf(name, sizeof(name), "adaptive%s%s",
                         o.ctl[c] ? ":" : "",
                         o.ctl[c] ? zc_adapt_controller_name(o.ctl[c]) : "");
                add_jobs(m / o.page_size, NULL, capstr, -1);
                for (size_t i = first; i < njobs; i++) {
                    char *l = jobs[i].label;
                    size_t nl = strlen(name), nc = strlen(capstr);
                    jobs[i].adaptive = true;
                    jobs[i].controller = o.ctl[c];
                    /* the label starts with the capacity: the name
                     * replaces it (cut to fit) */
                    if (strlen(l) - nc + nl >= sizeof(jobs[i].label))
                        l[sizeof(jobs[i].label) - 1 - nl + nc] = '\0';
                    memmove(l + nl, l + nc, strlen(l + nc) + 1);
                    memcpy(l, name, nl);
                }
            }
            o.adapt.memory_bytes = m;
            if (!o.adapt.disk_ns)
                o.adapt.disk_ns = o.prices.disk_ns;
            if (!o.adapt.put_ns)
                o.adapt.put_ns = o.prices.put_ns;
            if (!o.adapt.get_ns)
                o.adapt.get_ns = o.prices.get_ns;
        }
    } else {
        if (is_ops) {
            for (size_t c = 0; c < ncap; c++)
                add_jobs(0, o.traces[0], cap_of(caps[c]), 0);
        } else {
            for (size_t p = 0; p < npc; p++) {
                uint64_t pc = size_arg(pcs[p], true, "--page-cache");
                if (pc > ZC_REPLAY_PAGES_MAX)
                    die_too_many_pages("--page-cache", pcs[p]);
                for (size_t c = 0; c < ncap; c++)
                    add_jobs(pc, NULL, cap_of(caps[c]), 0);
            }
        }
    }
    if (!o.share_list && !o.adaptive)
        nstatic = njobs;
    if (o.plot && njobs - nstatic > 1) {
        /* no output over an input: each adaptive row's plot files too */
        static const char *const ext[] = {"csv", "gp", "png", "svg"};
        char suffix[4][64];
        const char *const sp[4] = {suffix[0], suffix[1], suffix[2],
                                   suffix[3]};
        for (size_t i = 1; i <= njobs - nstatic; i++) {
            for (int k = 0; k < 4; k++)
                snprintf(suffix[k], sizeof(suffix[k]), "-adaptive-%zu.%s", i,
                         ext[k]);
            trace_refuse_clash("--plot", o.plot, sp, 4, o.traces, o.ntraces,
                               o.content);
        }
    }
    if (o.jobs > 64)
        o.jobs = 64;
    if (o.memo_mb && zc_memo_create(o.memo_mb << 20, &memo))
        die(1, "%s", "out of memory");
    if (is_ops) {
        /* A .zct: every configuration reads it in a thread of its own. */
        for (int t = 0; t < o.jobs; t++)
            if (pthread_create(&th[t], NULL, worker, NULL))
                die(1, "%s", "cannot start a thread");
        for (int t = 0; t < o.jobs; t++)
            pthread_join(th[t], NULL);
    } else {
        if (nstatic)
            run_lockstep(mrc);
        run_adaptive();
    }
    if ((status = report_failures())) {
        free_all(mrc);
        return status;
    }
    /* A row's capacity is its cache's: a --set capacity=... overrides
     * --capacity.  (An adaptive row's is all of M, which it moves.) */
    for (size_t i = 0; i < nstatic; i++)
        if (jobs[i].have_zs)
            jobs[i].cap_bytes = jobs[i].zs.capacity_bytes;
    /* The curve and the model must agree when both are exact LRU. */
    for (size_t i = 0; mrc && (!o.model || !strcmp(o.model, "lru")) &&
                       i < nstatic;
         i++)
        if (zc_mrc_hits(mrc, jobs[i].pc_pages) != jobs[i].st.pc_hits) {
            fprintf(stderr,
                    NAME ": internal error: LRU curve %" PRIu64
                         " hits, model %" PRIu64 " at %" PRIu64 " pages\n",
                    zc_mrc_hits(mrc, jobs[i].pc_pages), jobs[i].st.pc_hits,
                    jobs[i].pc_pages);
            free_all(mrc);
            return 1;
        }
    output(mrc);
    if (o.mrc_list && mrc && !strcmp(o.output, "text")) {
        char *sizes[MAX_LIST];
        size_t n = split_list(o.mrc_list, sizes, true, "--mrc");
        printf("\nLRU curve of the page cache (one pass, %" PRIu64
               " accesses, %" PRIu64 " distinct pages):\n%12s %12s %9s\n",
               zc_mrc_accesses(mrc), zc_mrc_distinct(mrc), "pages", "hits",
               "hit%");
        for (size_t i = 0; i < n; i++) {
            uint64_t pages = size_arg(sizes[i], true, "--mrc");
            printf("%12" PRIu64 " %12" PRIu64 " %8.4f%%\n", pages,
                   zc_mrc_hits(mrc, pages),
                   pct(zc_mrc_hits(mrc, pages), zc_mrc_accesses(mrc)));
        }
    }
    free_all(mrc);
    return outfile_stdout_close(NAME);
}
