/*
 * zcache-replay - replay a block trace through a page-cache model into
 * libzcache, and report hit rates, memory and CPU.
 *
 *   zcache-replay [OPTIONS] TRACE...
 *
 * The trace's requests are split into page accesses; an LRU page cache of
 * --page-cache pages serves them; its evictions are put to a zcache built
 * from --zcache (the zc_config_parse() spelling), its read misses try a
 * get first.  Page contents come from --content.  Uses only the public
 * headers.  Bad input: a one-line message naming the file and line or
 * offset, exit status 2, and no results.
 *
 * An op stream (.zct, binary or text) given as the trace is played into
 * the zcache directly: the page cache that made it is already in it.
 * --save-ops writes the op stream of the run (so it also converts one
 * op stream form into the other).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "plot.h"
#include "split_log.h"
#include "statsout.h"
#include "trace_content.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-replay"

struct opts {
    const char *format;
    size_t page_size;
    uint64_t max_request;   /* bytes; 0: the library's default */
    const char *page_cache; /* as given */
    uint64_t pc_pages;
    const char *zspec; /* NULL: off */
    const char *content;
    char *content_own; /* content, when it is a copy (freed by main) */
    const char *output;
    const char *save_ops;
    int save_level;
    bool page_size_set, page_cache_set, content_set;
    int progress; /* -1 auto, 0 off, 1 on */
    int verify;
    const char **traces; /* in argv */
    size_t ntraces;
    /* a fixed memory split between the page cache and the zcache */
    const char *memory; /* as given, or NULL */
    double share;       /* static split: the zcache's %, or -1 */
    uint64_t zc_bytes;  /* with --memory: the zcache's capacity to make */
    bool adaptive;
    zc_adapt_options adapt;
    const char *split_csv, *plot;
    const char *model; /* page-cache model */
    uint64_t ra_kb;    /* --read-ahead-kb */
    bool ra_set;
    bool follow_kernel; /* --page-cache kernel */
};

/* The --zcache and --adapt keys, from the library's own lists. */
static void help_keys(FILE *f)
{
    zc_config def = zc_config_default();
    char buf[512];

    fprintf(f, "\n--zcache keys (KEY=VALUE,...):\n");
    for (size_t i = 0; zc_config_key_name(i); i++)
        fprintf(f, "  %-19s %s\n", zc_config_key_name(i), zc_config_key_doc(i));
    zc_config_format(&def, buf, sizeof(buf));
    fprintf(f, "  defaults: %s\n", buf);
    fprintf(f, "\n--adapt keys (KEY=VALUE,...):\n");
    for (size_t i = 0; zc_adapt_key_name(i); i++)
        if (strcmp(zc_adapt_key_name(i), "memory")) /* that is --memory */
            fprintf(f, "  %-19s %s\n", zc_adapt_key_name(i),
                    zc_adapt_key_doc(i));
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " NAME " [OPTIONS] TRACE...\n"
            "\n"
            "Replay a block trace or an access stream through a page-cache "
            "model\nin front of a zcache.\n"
            "\n"
            "options:\n"
            "  --format NAME       trace format, or auto (default): see below\n"
            "  --page-size N       page size in bytes (default 4096)\n"
            "  --max-request SIZE  refuse a trace request longer than SIZE "
            "bytes (K/M/G/T;\n"
            "                      default 1G: no device request comes near "
            "it, and the\n"
            "                      replay walks a request page by page)\n"
            "  --page-cache SIZE   page-cache capacity: pages, or bytes with "
            "K/M/G\n"
            "                      (default 64M); 'kernel': follow the "
            "resident page\n"
            "                      count an access stream recorded\n"
            "  --page-cache-model NAME\n"
            "                      the page cache's replacement: see below "
            "(default lru)\n"
            "  --read-ahead-kb N   readahead limit of a model that reads "
            "ahead (default:\n"
            "                      the trace's read_ahead_kb, else 128)\n"
            "  --zcache SPEC       zcache configuration, e.g. "
            "capacity=32M,compressor=lzo,\n"
            "                      allocator=zbud; 'off' for none (default: "
            "the library's\n"
            "                      defaults: capacity=64M,lzo,zsmalloc,lru)\n"
            "  --content SOURCE    page contents: synth[:SEED], zero, "
            "random[:SEED],\n"
            "                      corpus:FILE, image:FILE (block pages "
            "only), pack:FILE;\n"
            "                      default: pack:PACK when the trace's "
            "header names a\n"
            "                      pack (resolved beside the trace), else "
            "synth\n"
            "  --save-ops FILE     write the run's cleancache op stream with "
            "its contents:\n"
            "                      .zct (binary), or the text form if FILE "
            "ends in .txt\n"
            "  --save-ops-level N  compression of a .zct: 0 none, 1 LZO1X-1 "
            "(default),\n"
            "                      9 LZO1X-999 (slower to write, smaller)\n"
            "  --output FORMAT     text (default), json or csv\n"
            "  --verify            check every zcache hit against the bytes of "
            "the page's\n"
            "                      last put (counted in zc_wrong; exit 1 if "
            "any)\n"
            "  --memory M          memory shared by the page cache and the "
            "zcache's arena\n"
            "                      (replaces --page-cache and the zcache's "
            "capacity); with\n"
            "  --share S             a static split: the zcache gets S%% of "
            "M, or\n"
            "  --adaptive            a controller that moves the boundary "
            "as it runs\n"
            "  --adapt SPEC        the controller's options, KEY=V,... "
            "(implies --adaptive):\n"
            "                      see below\n"
            "  --disk-latency T    a disk read's cost for the controller: "
            "100us, 8ms, ... or\n"
            "                      hdd (8ms), ssd (100us, the default), nvme "
            "(20us)\n"
            "  --split-csv FILE    adaptive: the split at each epoch, as CSV\n"
            "  --plot PREFIX       adaptive: PREFIX.csv, PREFIX.gp and, with "
            "gnuplot,\n"
            "                      PREFIX.png and PREFIX.svg: the split over "
            "time\n"
            "  --progress, --no-progress\n"
            "                      progress on stderr (default: when it is a "
            "terminal)\n"
            "  --help, --version\n"
            "\n"
            "trace formats:\n");
    for (size_t i = 0; zc_trace_format_name(i); i++)
        fprintf(f, "  %-18s %s\n", zc_trace_format_name(i),
                zc_trace_format_doc(i));
    fprintf(f, "  %-18s %s\n", "zct",
            "libzcache op stream (.zct or its text form), played into the "
            "zcache as it is; --page-cache and --content do not apply");
    fprintf(f, "\npage-cache models (--page-cache-model):\n");
    for (size_t i = 0; zc_page_cache_model_name(i); i++)
        fprintf(f, "  %-10s %s\n", zc_page_cache_model_name(i),
                zc_page_cache_model_doc(i));
    fprintf(f, "\nzcache back-ends (--zcache compressor=, allocator=, "
               "policy=):\n");
    static const char *const kinds[] = {"compressor", "allocator", "policy"};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; zc_backend_name((zc_backend_kind)k, i); i++)
            fprintf(f, "  %-10s %-10s %s\n", kinds[k],
                    zc_backend_name((zc_backend_kind)k, i),
                    zc_backend_doc((zc_backend_kind)k, i));
    help_keys(f);
    fprintf(f, "\nexit status: 0 done, 2 bad arguments or bad input, 1 "
               "other failure\n");
}

/* Pages, or bytes with a K/M/G/T suffix (then divided by the page size). */
static int parse_pages(const char *s, size_t page_size, uint64_t *out)
{
    int rc = zc_parse_size(s, out);

    if (rc < 0)
        return -1;
    if (rc == 1)
        *out /= page_size;
    return 0;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof(*o));
    o->page_size = 4096;
    o->page_cache = "64M";
    o->model = "lru";
    o->zspec = "";
    o->content = "synth";
    o->output = "text";
    o->progress = -1;
    o->save_level = 1;
    o->share = -1;
    /* The traces are gathered in argv itself, over the arguments already
     * read (nothing to free on any exit). */
    o->traces = (const char **)argv;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(outfile_stdout_close(NAME));
        }
        if (strcmp(a, "--version") == 0) {
            printf(NAME " (libzcache %s)\n", zc_version());
            exit(outfile_stdout_close(NAME));
        }
        if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
            continue;
        }
        if (strcmp(a, "--verify") == 0) {
            o->verify = 1;
            continue;
        }
        if (strcmp(a, "--adaptive") == 0) {
            o->adaptive = true;
            continue;
        }
        if (strcmp(a, "--no-progress") == 0) {
            o->progress = 0;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            o->traces[o->ntraces++] = a;
            continue;
        }
        {
            const char *eq = strchr(a, '=');
            static char key[64];
            size_t n = eq ? (size_t)(eq - a) : strlen(a);
            if (n >= sizeof(key))
                die_usage("unknown option '%s'", a);
            memcpy(key, a, n);
            key[n] = '\0';
            if (eq) {
                v = eq + 1;
            } else {
                if (i + 1 >= argc)
                    die_usage("option %s needs a value", a);
                v = argv[++i];
            }
            a = key;
        }
        if (strcmp(a, "--format") == 0) {
            o->format = v;
        } else if (strcmp(a, "--page-size") == 0) {
            char *end;
            unsigned long ps = strtoul(v, &end, 10);
            if (*end || ps < 512 || ps > 65536 || (ps & (ps - 1)))
                die_usage("--page-size %s: want a power of two from 512 to "
                          "65536",
                          v);
            o->page_size = ps;
            o->page_size_set = true;
        } else if (strcmp(a, "--max-request") == 0) {
            if (zc_parse_size(v, &o->max_request) < 0 || !o->max_request)
                die_usage("--max-request %s: want bytes above 0, with "
                          "K/M/G/T",
                          v);
        } else if (strcmp(a, "--page-cache") == 0) {
            o->page_cache = v;
            o->page_cache_set = true;
        } else if (strcmp(a, "--page-cache-model") == 0) {
            if (!trace_model_known(v))
                die_usage("--page-cache-model %s: no such model (see "
                          "--help)",
                          v);
            o->model = v;
        } else if (strcmp(a, "--read-ahead-kb") == 0) {
            if (trace_parse_read_ahead(v, &o->ra_kb))
                die_usage("--read-ahead-kb %s: want KiB from 0 to 4194304", v);
            o->ra_set = true;
        } else if (strcmp(a, "--zcache") == 0) {
            o->zspec = strcmp(v, "off") == 0 ? NULL : v;
        } else if (strcmp(a, "--content") == 0) {
            o->content = v;
            o->content_set = true;
        } else if (strcmp(a, "--save-ops") == 0) {
            o->save_ops = v;
        } else if (strcmp(a, "--save-ops-level") == 0) {
            if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "9"))
                die_usage("--save-ops-level %s: want 0, 1 or 9", v);
            o->save_level = atoi(v);
        } else if (strcmp(a, "--memory") == 0) {
            o->memory = v;
        } else if (strcmp(a, "--share") == 0) {
            char *end;
            o->share = strtod(v, &end);
            if (end == v || *end || !(o->share >= 0 && o->share <= 100))
                die_usage("--share %s: want a percentage, 0 to 100", v);
        } else if (strcmp(a, "--adapt") == 0) {
            static char err[256];
            o->adaptive = true;
            if (zc_adapt_options_parse(&o->adapt, v, err, sizeof(err)))
                die_usage("--adapt: %s", err);
            if (o->adapt.memory_bytes)
                die_usage("--adapt %s: the memory is --memory's", v);
        } else if (strcmp(a, "--disk-latency") == 0) {
            static char err[256], spec[128];
            snprintf(spec, sizeof(spec), "disk=%s", v);
            if (zc_adapt_options_parse(&o->adapt, spec, err, sizeof(err)))
                die_usage("--disk-latency: %s", err);
        } else if (strcmp(a, "--split-csv") == 0) {
            if (outfile_dir_error(v))
                die_usage("--split-csv %s: %s", v, outfile_dir_error(v));
            o->split_csv = v;
        } else if (strcmp(a, "--plot") == 0) {
            if (plot_prefix_error(v))
                die_usage("--plot: %s", plot_prefix_error(v));
            o->plot = v;
        } else if (strcmp(a, "--output") == 0) {
            if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv"))
                die_usage("--output %s: want text, json or csv", v);
            o->output = v;
        } else {
            die_usage("unknown option '%s'", a);
        }
    }
    if (!o->ntraces)
        die_usage("%s", "no trace given");
    if (o->save_ops && strcmp(o->save_ops, "-") == 0)
        die_usage("--save-ops %s: the results go to standard output; give a "
                  "file",
                  o->save_ops);
    o->follow_kernel = strcmp(o->page_cache, "kernel") == 0;
    if (o->follow_kernel && o->memory)
        die_usage("%s", "--page-cache kernel: not with --memory (the split "
                        "decides the page cache's size)");
    if (o->follow_kernel)
        o->pc_pages = 0;
    else if (parse_pages(o->page_cache, o->page_size, &o->pc_pages))
        die_usage("--page-cache %s: want pages (e.g. 10000) or bytes with "
                  "K/M/G (e.g. 256M)",
                  o->page_cache);
    else if (o->pc_pages > ZC_REPLAY_PAGES_MAX)
        die_too_many_pages("--page-cache", o->page_cache);
    if (o->memory) {
        uint64_t m;
        if (zc_parse_size(o->memory, &m) < 0 || m < o->page_size)
            die_usage("--memory %s: want bytes with K/M/G (e.g. 64M), at "
                      "least a page",
                      o->memory);
        if (m / o->page_size > ZC_REPLAY_PAGES_MAX)
            die_too_many_pages("--memory", o->memory);
        if (o->page_cache_set)
            die_usage("%s", "--memory splits memory: no --page-cache");
        if (!o->zspec)
            die_usage("%s", "--memory splits memory with a zcache: not "
                            "--zcache off");
        if (o->adaptive && o->share >= 0)
            die_usage("%s", "--memory: --share S is a static split, "
                            "--adaptive a moving one: not both");
        if (!o->adaptive && o->share < 0)
            die_usage("%s", "--memory wants --share S or --adaptive");
        if (o->save_ops && o->adaptive)
            die_usage("%s", "--save-ops: an adaptive run's op stream depends "
                            "on its zcache; save a static one");
        o->adapt.memory_bytes = m;
        if (o->share >= 0) {
            uint64_t cap = (uint64_t)((double)m * o->share / 100.0) /
                           o->page_size * o->page_size;
            o->pc_pages = (m - cap) / o->page_size;
            o->zc_bytes = cap;
            if (!cap)
                o->zspec = NULL; /* a share of 0 is no zcache, as in the
                                    sweep */
        } else {
            o->pc_pages = m / o->page_size;
            o->zc_bytes = m; /* made for all of M, given its share */
        }
        if (o->zc_bytes > ZC_CAPACITY_MAX)
            die_usage("--memory %s: a zcache of %" PRIu64 " bytes%s is more "
                      "than the library's largest, %zu (15 GiB)",
                      o->memory, o->zc_bytes,
                      o->adaptive ? " (made for all of M)" : "",
                      (size_t)ZC_CAPACITY_MAX);
    } else if (o->adaptive || o->share >= 0) {
        die_usage("%s", "--share and --adaptive need --memory M");
    }
    if ((o->split_csv || o->plot) && !o->adaptive)
        die_usage("%s", "--split-csv and --plot show an adaptive run: "
                        "--memory M --adaptive");
    if (o->split_csv) {
        /* Opened again (/dev/stdout, or the file stdout goes to), a file
         * would be truncated and written over by the report. */
        struct stat a, b;
        if (!stat(o->split_csv, &a) && !fstat(STDOUT_FILENO, &b) &&
            S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            die_usage("--split-csv %s: that is the file standard output "
                      "goes to, where the report goes",
                      o->split_csv);
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* The run's traces as one CSV field, separated by spaces. */
static void csv_traces(const struct opts *o)
{
    size_t len = 1;
    char *all;

    for (size_t i = 0; i < o->ntraces; i++)
        len += strlen(o->traces[i]) + 1;
    if (!(all = malloc(len))) {
        fprintf(stderr, NAME ": out of memory\n");
        exit(1);
    }
    all[0] = '\0';
    for (size_t i = 0; i < o->ntraces; i++) {
        if (i)
            strcat(all, " ");
        strcat(all, o->traces[i]);
    }
    out_csv_string(stdout, all);
    free(all);
}

static const char *pages_str(uint64_t n)
{
    static char b[24];

    snprintf(b, sizeof(b), "%" PRIu64, n);
    return b;
}

/* The zcache's resolved configuration (zc_config_format), "off" for
 * none: what the outputs say the zcache was. */
static char zc_config_str[512] = "off";

/* An adaptive run's figures, for the outputs (split_outputs() sets them). */
static struct {
    size_t epochs, moves;
    double mean_share;
    uint64_t end_pc_pages, end_zc_bytes;
} adapt_end;

static void output(const struct opts *o, const char *format,
                   const zc_replay_stats *r, const zc_stats *z, double secs)
{
    if (strcmp(o->output, "json") == 0) {
        printf("{\"traces\":[");
        for (size_t i = 0; i < o->ntraces; i++) {
            if (i)
                putchar(',');
            out_json_string(stdout, o->traces[i]);
        }
        printf("],\"format\":");
        out_json_string(stdout, format);
        printf(",\"page_size\":%zu,\"page_cache_pages\":%" PRIu64
               ",\"page_cache_follows_kernel\":%s,\"page_cache_model\":",
               o->page_size, o->pc_pages, o->follow_kernel ? "true" : "false");
        out_json_string(stdout, o->model);
        printf(",\"zcache_spec\":");
        out_json_string(stdout, o->zspec ? o->zspec : "off");
        printf(",\"zcache_config\":");
        out_json_string(stdout, zc_config_str);
        printf(",\"content\":");
        out_json_string(stdout, o->content);
        printf(",\"memory_bytes\":%" PRIu64 ",\"share_percent\":",
               o->memory ? o->adapt.memory_bytes : 0);
        if (o->memory && !o->adaptive)
            printf("%.1f", o->share);
        else
            printf("null");
        printf(",\"adaptive\":%s", o->adaptive ? "true" : "false");
        if (o->adaptive)
            printf(
                ",\"adapt\":{\"epochs\":%zu,\"moves\":%zu,"
                "\"mean_share_percent\":%.3f,\"end_page_cache_pages\":%" PRIu64
                ",\"end_zcache_bytes\":%" PRIu64 "}",
                adapt_end.epochs, adapt_end.moves, adapt_end.mean_share,
                adapt_end.end_pc_pages, adapt_end.end_zc_bytes);
        out_replay_json(stdout, r);
        printf(",\"elapsed_s\":%.6f,\"accesses_per_s\":%.0f", secs,
               secs > 0 ? (double)r->accesses / secs : 0.0);
        out_zcache_json(stdout, z);
        printf("}\n");
        return;
    }
    if (strcmp(o->output, "csv") == 0) {
        printf("trace,format,page_size,page_cache_pages,page_cache_model,"
               "zcache_spec,zcache_config,content,memory_bytes,share_percent,"
               "adaptive,adapt_epochs,adapt_moves,adapt_mean_share_percent,"
               "adapt_end_page_cache_pages,adapt_end_zcache_bytes");
        out_replay_csv_header(stdout);
        printf(",elapsed_s");
        out_zcache_csv_header(stdout);
        putchar('\n');
        csv_traces(o);
        printf(",%s,%zu,%s,%s,", format, o->page_size,
               o->follow_kernel ? "kernel" : pages_str(o->pc_pages), o->model);
        out_csv_string(stdout, o->zspec ? o->zspec : "off");
        putchar(',');
        out_csv_string(stdout, zc_config_str);
        putchar(',');
        out_csv_string(stdout, o->content);
        printf(",%" PRIu64 ",", o->memory ? o->adapt.memory_bytes : 0);
        if (o->memory && !o->adaptive)
            printf("%.1f", o->share);
        if (o->adaptive)
            printf(",true,%zu,%zu,%.3f,%" PRIu64 ",%" PRIu64, adapt_end.epochs,
                   adapt_end.moves, adapt_end.mean_share,
                   adapt_end.end_pc_pages, adapt_end.end_zc_bytes);
        else
            printf(",false,,,,,");
        out_replay_csv(stdout, r);
        printf(",%.6f", secs);
        out_zcache_csv(stdout, z);
        printf("\n");
        return;
    }
    printf("trace:       ");
    for (size_t i = 0; i < o->ntraces; i++)
        printf("%s%s", i ? " " : "", o->traces[i]);
    printf(" (%s)\n", format);
    if (o->follow_kernel)
        printf("page cache:  the kernel's recorded resident count, pages of "
               "%zu bytes (%s)\n",
               o->page_size, o->model);
    else if (o->adaptive)
        printf("memory:      %s split by the adaptive controller between "
               "the page cache\n             (%s, pages of %zu bytes) and "
               "the zcache; the end's split below\n",
               o->memory, o->model, o->page_size);
    else if (o->memory)
        printf("memory:      %s: page cache %" PRIu64 " pages of %zu bytes "
               "(%s), zcache %.1f%%\n",
               o->memory, o->pc_pages, o->page_size, o->model, o->share);
    else
        printf("page cache:  %" PRIu64 " pages of %zu bytes (%s)\n",
               o->pc_pages, o->page_size, o->model);
    if (z)
        printf("zcache:      capacity %" PRIu64 " bytes at the end; %s; "
               "content %s\n",
               z->capacity_bytes, *o->zspec ? o->zspec : "the defaults",
               o->content);
    else
        printf("zcache:      off\n");
    if (r->requests || strcmp(format, "zct"))
        printf("\n%" PRIu64 " requests, ", r->requests);
    else
        printf("\nop stream: ");
    printf("%" PRIu64 " page accesses (%" PRIu64 " reads, %" PRIu64
           " writes) in %.2f s, %.2f M accesses/s\n",
           r->accesses, r->reads, r->writes, secs,
           secs > 0 ? (double)r->accesses / secs / 1e6 : 0.0);
    printf("  page-cache hits   %12" PRIu64 "  %6.2f%% of accesses\n",
           r->pc_hits, 100 * ratio(r->pc_hits, r->accesses));
    if (z) {
        printf("  zcache gets       %12" PRIu64
               "  (read misses and pages read ahead)\n",
               r->zc_gets);
        printf("  zcache hits       %12" PRIu64 "  %6.2f%% of gets: disk "
               "reads avoided\n",
               r->zc_hits, 100 * ratio(r->zc_hits, r->zc_gets));
    }
    printf("  disk reads        %12" PRIu64 "  %6.2f%% of reads\n",
           r->disk_reads, 100 * ratio(r->disk_reads, r->reads));
    printf("  resident hits     %12" PRIu64 "  %6.2f%% of accesses (page "
           "in either tier)\n",
           r->resident_hits, 100 * ratio(r->resident_hits, r->accesses));
    printf("  pages read ahead  %12" PRIu64 "  (gets before any access: "
           "not accesses; their disk reads are counted above)\n",
           r->readahead);
    if (r->synthetic)
        printf("  synthetic puts    %12" PRIu64 "  (evicted pages the content "
               "source lacks, put with synthetic bytes)\n",
               r->synthetic);
    if (!z)
        return;
    printf("  zcache puts       %12" PRIu64 "  (page-cache evictions), "
           "%" PRIu64 " stored (%.1f%%)\n",
           r->zc_puts, r->zc_stored, 100 * ratio(r->zc_stored, r->zc_puts));
    printf("\nzcache at the end:\n");
    printf("  pages held        %12" PRIu64 "  (%" PRIu64
           " same-filled, %" PRIu64 " raw)\n",
           z->stored_pages, z->same_filled_pages, z->raw_pages);
    printf("  memory            %12" PRIu64 "  arena bytes in use, %" PRIu64
           " obtained; %" PRIu64 " metadata (%" PRIu64 " for pages, %" PRIu64
           " for files, %" PRIu64 " fixed)\n",
           z->mem_used_total, z->arena_bytes, z->meta_bytes, z->meta_page_bytes,
           z->meta_file_bytes, z->meta_fixed_bytes);
    printf("  density           %12.3f  (compressed bytes / arena bytes in "
           "use); fragmentation %.3f\n",
           ratio(z->compr_data_size, z->mem_used_total),
           ratio(z->frag_bytes, z->mem_used_total));
    printf("  rejected          %12" PRIu64 "  poorly compressible, %" PRIu64
           " no space, %" PRIu64 " full (hysteresis), %" PRIu64
           " never active\n",
           z->reject_compress_poor, z->reject_nospace, z->reject_full,
           z->reject_inactive);
    if (z->raw_stored || z->dedup_hits)
        printf("  stored raw        %12" PRIu64 "  (store_raw); %" PRIu64
               " puts deduplicated, %" PRIu64 " pages sharing now\n",
               z->raw_stored, z->dedup_hits, z->shared_pages);
    printf("  evictions         %12" PRIu64 "\n", z->evictions);
    printf("  CPU               %12.3f  s compressing stored pages, %.3f s "
           "wasted on rejected ones, %.3f s decompressing\n",
           (double)z->compress_ns / 1e9, (double)z->compress_ns_rejected / 1e9,
           (double)z->decompress_ns / 1e9);
}

/* The zcache of --zcache, or NULL for off (or after a message, with
 * *status the exit status: 2 a bad spec, 1 out of memory). */
static zc_cache *open_zcache(const struct opts *o, int *status)
{
    zc_config cfg = zc_config_default();
    zc_cache *zc;
    char err[512];
    int rc;

    if (!o->zspec)
        return NULL;
    cfg.page_size = o->page_size;
    rc = zc_config_parse_error(&cfg, o->zspec, err, sizeof(err));
    if (rc) {
        fprintf(stderr, NAME ": --zcache: %s\n", err);
        *status = 2;
        return NULL;
    }
    if (cfg.page_size != o->page_size) {
        fprintf(stderr,
                NAME ": --zcache page_size=%zu differs from the page size "
                     "%zu\n",
                cfg.page_size, o->page_size);
        *status = 2;
        return NULL;
    }
    /* A static split's zcache has its share; an adaptive one is made for
     * all of M (allocators lay out their size classes by the capacity they
     * are made with) and then given its share. */
    if (o->memory)
        cfg.capacity_bytes = o->zc_bytes;
    zc_config_format(&cfg, zc_config_str, sizeof(zc_config_str));
    rc = zc_cache_create(&cfg, &zc);
    if (rc) {
        if (rc == -ZC_EINVAL && cfg.capacity_bytes > ZC_CAPACITY_MAX)
            fprintf(stderr,
                    NAME ": --zcache %s: capacity %zu bytes: more than the "
                         "library's largest, %zu (15 GiB)\n",
                    o->zspec, cfg.capacity_bytes, (size_t)ZC_CAPACITY_MAX);
        else if (rc == -ZC_ENOMEM)
            fprintf(stderr,
                    NAME ": --zcache %s: capacity %zu bytes: does not fit in "
                         "memory\n",
                    o->zspec, cfg.capacity_bytes);
        else
            fprintf(stderr, NAME ": --zcache %s: %s\n", o->zspec,
                    zc_strerror(rc));
        *status = rc == -ZC_EINVAL ? 2 : 1;
        return NULL;
    }
    return zc;
}

/* The adaptive run in a few words, printed after the text results. */
static char adapt_summary[512];

/* --split-csv and --plot, and the text summary's figures: the exit
 * status's 1 if a file cannot be written. */
static int split_outputs(const struct opts *o, const zc_replay *r,
                         const zc_replay_stats *rs)
{
    const zc_adapt_epoch *e;
    size_t n = zc_replay_adapt_log(r, &e), moves = 0;
    double share_sum = 0;
    char label[256];
    FILE *f;

    for (size_t i = 0; i < n; i++) {
        moves += e[i].next_zc_bytes != e[i].zc_bytes;
        share_sum +=
            100.0 * (double)e[i].zc_bytes / (double)o->adapt.memory_bytes;
    }
    if (o->split_csv) {
        outfile out;
        if (!(f = outfile_open(&out, o->split_csv))) {
            fprintf(stderr, NAME ": cannot write %s: %s\n", o->split_csv,
                    strerror(errno));
            return 1;
        }
        split_log_csv(f, e, n, o->page_size);
        if (outfile_close(&out)) {
            fprintf(stderr, NAME ": cannot write %s: %s\n", o->split_csv,
                    strerror(errno));
            outfile_discard(&out);
            return 1;
        }
    }
    plot_traces_text(label, sizeof(label), o->traces, o->ntraces);
    if (o->plot &&
        split_log_plot(NAME, o->plot, label, o->memory, e, n, o->page_size))
        return 1;
    {
        uint64_t pc = n ? e[n - 1].next_pc_pages : o->pc_pages;
        uint64_t zb = n ? e[n - 1].next_zc_bytes : 0;
        adapt_end.epochs = n;
        adapt_end.moves = moves;
        adapt_end.mean_share = n ? share_sum / (double)n : 0.0;
        adapt_end.end_pc_pages = pc;
        adapt_end.end_zc_bytes = zb;
        snprintf(adapt_summary, sizeof(adapt_summary),
                 "\nadaptive split of %s: %zu epochs, %zu move%s; the zcache's "
                 "share averaged %.1f%%,\n  ended at %" PRIu64
                 " page-cache pages + %" PRIu64 " zcache bytes; %" PRIu64
                 " evictions not put (%" PRIu64 " probed)\n",
                 o->memory, n, moves, moves == 1 ? "" : "s",
                 n ? share_sum / (double)n : 0.0, pc, zb, rs->zc_skipped,
                 rs->zc_probes);
        if (n && (!o->adapt.put_ns || !o->adapt.get_ns)) {
            /* measured prices: another run, another split */
            size_t len = strlen(adapt_summary);
            snprintf(adapt_summary + len, sizeof(adapt_summary) - len,
                     "  priced with this run's measured CPU (put %.1f us, "
                     "get %.1f us at the end): it depends on the\n  machine "
                     "and its load; --adapt put=T,get=T makes a run "
                     "reproducible\n",
                     e[n - 1].put_ns / 1000.0, e[n - 1].get_ns / 1000.0);
        }
    }
    return 0;
}

/* The --save-ops file, removed (if it is a regular file) when the run
 * fails. */
static outfile save_out;

/* After a failure: the stream saved so far is not complete; close w
 * without its end record and remove the file if it is a regular file
 * (outfile.h: a device, FIFO or symlink stays; what went there fails to
 * read, lacking the end record). */
static void abandon_ops(zc_ops_writer *w)
{
    /* An op of no kind makes the writer's error sticky, so close writes
     * nothing more: no end record to pass a cut stream off as whole. */
    if (w)
        (void)zc_ops_write(w, &(zc_op){.kind = 0});
    zc_ops_writer_close(w, NULL, 0);
    outfile_discard(&save_out);
}

struct progress {
    const struct opts *o;
    double t0, next;
};

static int progress(void *ctx, const zc_session *s)
{
    struct progress *p = ctx;
    zc_replay_stats rs;

    if (!p->o->progress || now_s() < p->next)
        return 0;
    zc_session_stats(s, &rs);
    fprintf(stderr,
            "\r" NAME ": %" PRIu64 " requests, %" PRIu64
            " accesses, %.2f M/s   ",
            rs.requests, rs.accesses,
            (double)rs.accesses / (now_s() - p->t0) / 1e6);
    p->next = now_s() + 0.5;
    return 0;
}

/* Open the traces as a session: 0, or the exit status after a message. */
static int open_session(struct opts *o, zc_session **s)
{
    zc_session_options so = {0};
    char err[1024];
    const char *v;
    int rc;

    so.format = o->format;
    so.page_size = o->page_size_set ? o->page_size : 0;
    so.max_request = o->max_request;
    so.content = o->content_set ? o->content : NULL;
    so.no_content = !o->zspec && !o->save_ops;
    so.model = o->model;
    so.read_ahead_set = o->ra_set;
    so.read_ahead_kb = o->ra_kb;
    if ((rc = zc_session_open(o->traces, o->ntraces, &so, s, err,
                              sizeof(err)))) {
        fprintf(stderr, NAME ": %s\n", err);
        return cli_status(rc);
    }
    o->page_size = zc_session_page_size(*s);
    /* a copy: the session goes before the report */
    if (!(o->content = o->content_own = strdup(zc_session_content(*s)))) {
        fprintf(stderr, NAME ": out of memory\n");
        return 1;
    }
    if (!zc_session_is_ops(*s))
        return 0;
    if (o->page_cache_set || o->content_set)
        fprintf(stderr,
                NAME ": %s: an op stream has its page cache and "
                     "contents in it: --page-cache and --content "
                     "ignored\n",
                o->traces[0]);
    v = zc_session_meta(*s, "page_cache");
    o->pc_pages = v ? strtoull(v, NULL, 10) : 0;
    o->follow_kernel = false;
    return 0;
}

/* Replay the traces (or play the op stream): the exit status. */
static int run(struct opts *o, const char **format, zc_replay_stats *rs,
               zc_stats *zs, bool *have_zs, double *secs)
{
    static const char *const plot_files[] = {".csv", ".gp", ".png", ".svg"};
    zc_session_run_options ro = {0};
    struct progress pg = {o, now_s(), now_s() + 0.5};
    zc_session *s = NULL;
    zc_ops_writer *w = NULL;
    zc_cache *zc = NULL;
    char err[512];
    int rc, status;

    if ((status = open_session(o, &s)))
        return status;
    /* no output over an input: the traces, the content's file */
    trace_refuse_clash("--save-ops", o->save_ops, NULL, 0, o->traces,
                       o->ntraces, o->content);
    trace_refuse_clash("--split-csv", o->split_csv, NULL, 0, o->traces,
                       o->ntraces, o->content);
    trace_refuse_clash("--plot", o->plot, plot_files, 4, o->traces, o->ntraces,
                       o->content);
    *format = zc_session_format(s);
    zc = open_zcache(o, &status);
    if (status)
        goto close;
    if (o->save_ops) {
        if ((rc = zc_session_ops_writer(s, o->save_ops,
                                        o->save_level ? o->save_level : -1,
                                        o->pc_pages, &w))) {
            fprintf(stderr, NAME ": --save-ops: %s\n", zc_session_error(s));
            status = 1;
            goto close;
        }
        outfile_claim(&save_out, o->save_ops);
    }
    ro.page_cache_pages = o->pc_pages;
    ro.page_cache_kernel = o->follow_kernel;
    ro.zcache = zc;
    ro.adapt = o->adaptive ? &o->adapt : NULL;
    ro.verify = o->verify;
    ro.save_ops = w;
    ro.progress = progress;
    ro.progress_ctx = &pg;
    rc = zc_session_run(s, &ro);
    if (o->progress)
        fprintf(stderr, rc ? "\n" : "\r%70s\r", "");
    if (rc) {
        if (w && *zc_ops_writer_error(w))
            fprintf(stderr, NAME ": --save-ops: %s\n", zc_ops_writer_error(w));
        else if (rc == -ZC_ENOMEM && !zc_session_replay(s) &&
                 !zc_session_is_ops(s)) /* the page cache did not fit */
            fprintf(stderr, NAME ": %s %s: %s\n",
                    o->memory ? "--memory" : "--page-cache",
                    o->memory       ? o->memory
                    : o->page_cache ? o->page_cache
                                    : "(default)",
                    zc_session_error(s));
        else
            fprintf(stderr, NAME ": %s\n", zc_session_error(s));
        status = w && *zc_ops_writer_error(w) ? 1 : cli_status(rc);
        abandon_ops(w);
        goto close;
    }
    *secs = now_s() - pg.t0;
    if (w && zc_ops_writer_close(w, err, sizeof(err))) {
        fprintf(stderr, NAME ": --save-ops: %s\n", err);
        outfile_discard(&save_out);
        status = 1;
    }
    zc_session_stats(s, rs);
    *have_zs = zc != NULL;
    if (zc)
        zc_stats_get(zc, zs);
    if (!status && o->adaptive && split_outputs(o, zc_session_replay(s), rs))
        status = 1;
close:
    zc_session_close(s);
    zc_cache_destroy(zc);
    return status;
}

int main(int argc, char **argv)
{
    struct opts o;
    const char *format = "zct";
    zc_replay_stats rs;
    zc_stats zs;
    bool have_zs = false;
    double secs = 0;
    int rc;
    cli_init(NAME, NULL);

    parse_args(argc, argv, &o);
    if (o.progress < 0)
        o.progress = isatty(STDERR_FILENO);
    memset(&rs, 0, sizeof(rs));
    rc = run(&o, &format, &rs, &zs, &have_zs, &secs);
    if (!rc) {
        output(&o, format, &rs, have_zs ? &zs : NULL, secs);
        if (!strcmp(o.output, "text"))
            fputs(adapt_summary, stdout);
        if (rs.zc_wrong) {
            fprintf(stderr,
                    NAME ": %" PRIu64 " zcache hits returned wrong data\n",
                    rs.zc_wrong);
            rc = 1;
        }
    }
    free(o.content_own);
    if (outfile_stdout_close(NAME) && !rc)
        rc = 1;
    return rc;
}
