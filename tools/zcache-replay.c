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
#include "zcache.h"
#include "zcache_sim.h"

#include "replay.h"

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

/* The page cache's and the zcache's sizes in pages of o->page_size: again
 * when a trace's header gives another page size. */
static void settle_sizes(struct opts *o)
{
    o->follow_kernel = strcmp(o->page_cache, "kernel") == 0;
    if (o->follow_kernel && o->memory)
        die_usage("%s", "--page-cache kernel: not with --memory (the split "
                        "decides the page cache's size)");
    if (o->follow_kernel)
        o->pc_pages = 0;
    else if (zc_parse_pages(o->page_cache, o->page_size, &o->pc_pages))
        die_usage("--page-cache %s: want pages (e.g. 10000) or whole pages "
                  "of bytes with K/M/G (e.g. 256M)",
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
            uint64_t cap = zc_share_capacity(m, o->share, o->page_size);
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
            if (!cli_model_known(v))
                die_usage("--page-cache-model %s: no such model (see "
                          "--help)",
                          v);
            o->model = v;
        } else if (strcmp(a, "--read-ahead-kb") == 0) {
            if (cli_read_ahead(v, &o->ra_kb))
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
    settle_sizes(o);
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

/* The zcache of --zcache, or NULL for off (or after a message, with
 * *status the exit status: 2 a bad spec, 1 out of memory). */
static zc_cache *open_zcache(const struct opts *o, struct result *res,
                             int *status)
{
    zc_config cfg = {0};
    zc_cache *zc;
    char err[512];
    int rc;

    snprintf(res->zc_config, sizeof(res->zc_config), "off");
    if (!o->zspec)
        return NULL;
    /* A static split's zcache has its share; an adaptive one is made for
     * all of M (allocators lay out their size classes by the capacity they
     * are made with) and then given its share. */
    rc = zc_cache_open(o->zspec, o->page_size, o->memory ? o->zc_bytes : 0,
                       NULL, &cfg, &zc, err, sizeof(err));
    if (cfg.compressor)
        zc_config_format(&cfg, res->zc_config, sizeof(res->zc_config));
    if (rc) {
        fprintf(stderr, NAME ": --zcache %s: %s\n", o->zspec, err);
        *status = cli_status(rc);
        return NULL;
    }
    return zc;
}

/* The --save-ops file, removed (if it is a regular file) when the run
 * fails. */
static outfile save_out;

/* After a failure: the stream saved so far goes (its temporary file; one
 * written to a FIFO or standard output has no end record, so that it fails
 * to read); one already in place is removed if it is still that regular
 * file (outfile.h). */
static void abandon_ops(zc_ops_writer *w)
{
    zc_ops_writer_abandon(w);
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

    if (!p->o->progress || cli_now() < p->next)
        return 0;
    zc_session_stats(s, &rs);
    fprintf(stderr,
            "\r" NAME ": %" PRIu64 " requests, %" PRIu64
            " accesses, %.2f M/s   ",
            rs.requests, rs.accesses,
            (double)rs.accesses / (cli_now() - p->t0) / 1e6);
    p->next = cli_now() + 0.5;
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
    if (zc_session_page_size(*s) != o->page_size) { /* the header's */
        o->page_size = zc_session_page_size(*s);
        settle_sizes(o);
    }
    /* a copy: the session goes before the report */
    snprintf(o->content_buf, sizeof(o->content_buf), "%s",
             zc_session_content(*s));
    o->content = o->content_buf;
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
static int run(struct opts *o, struct result *res)
{
    static const char *const plot_files[] = {".csv", ".gp", ".png", ".svg"};
    zc_session_run_options ro = {0};
    struct progress pg = {o, cli_now(), cli_now() + 0.5};
    zc_session *s = NULL;
    zc_ops_writer *w = NULL;
    zc_cache *zc = NULL;
    char err[512];
    int rc, status;

    if ((status = open_session(o, &s)))
        return status;
    /* no output over an input: the traces, the content's file */
    outfile_refuse_clash("--save-ops", o->save_ops, NULL, 0, o->traces,
                         o->ntraces, o->content);
    outfile_refuse_clash("--split-csv", o->split_csv, NULL, 0, o->traces,
                         o->ntraces, o->content);
    outfile_refuse_clash("--plot", o->plot, plot_files, 4, o->traces,
                         o->ntraces, o->content);
    outfile_refuse_same("--split-csv", o->split_csv, o->plot, plot_files, 4);
    outfile_refuse_same("--save-ops", o->save_ops, o->plot, plot_files, 4);
    res->format = zc_session_format(s);
    zc = open_zcache(o, res, &status);
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
    res->secs = cli_now() - pg.t0;
    if (w && zc_ops_writer_close(w, err, sizeof(err))) {
        fprintf(stderr, NAME ": --save-ops: %s\n", err);
        status = 1;
    } else if (w) {
        outfile_claim(&save_out, o->save_ops);
    }
    zc_session_stats(s, &res->rs);
    res->have_zs = zc != NULL;
    if (zc)
        zc_stats_get(zc, &res->zs);
    if (!status && o->adaptive &&
        replay_split_outputs(o, zc_session_replay(s), res))
        status = 1;
close:
    zc_session_close(s);
    zc_cache_destroy(zc);
    return status;
}

int main(int argc, char **argv)
{
    struct opts o;
    static struct result res = {.format = "zct"};
    int rc;
    cli_init(NAME, NULL);

    parse_args(argc, argv, &o);
    if (o.progress < 0)
        o.progress = isatty(STDERR_FILENO);
    rc = run(&o, &res);
    if (!rc) {
        replay_output(&o, &res);
        if (!strcmp(o.output, "text"))
            fputs(res.adapt_summary, stdout);
        if (res.rs.zc_wrong) {
            fprintf(stderr,
                    NAME ": %" PRIu64 " zcache hits returned wrong data\n",
                    res.rs.zc_wrong);
            rc = 1;
        }
    }
    if (outfile_stdout_close(NAME) && !rc)
        rc = 1;
    return rc;
}
