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
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zcache.h"
#include "zcache_trace.h"

#define NAME "zcache-replay"

struct opts {
    const char *format;
    size_t page_size;
    const char *page_cache; /* as given */
    uint64_t pc_pages;
    const char *zspec; /* NULL: off */
    const char *content;
    const char *output;
    int progress; /* -1 auto, 0 off, 1 on */
    int verify;
    const char **traces;
    size_t ntraces;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " NAME " [OPTIONS] TRACE...\n"
            "\n"
            "Replay a block trace through an LRU page cache in front of a "
            "zcache.\n"
            "\n"
            "options:\n"
            "  --format NAME       trace format, or auto (default): see below\n"
            "  --page-size N       page size in bytes (default 4096)\n"
            "  --page-cache SIZE   page-cache capacity: pages, or bytes with "
            "K/M/G\n"
            "                      (default 64M)\n"
            "  --zcache SPEC       zcache configuration, e.g. "
            "capacity=32M,compressor=lzo,\n"
            "                      allocator=zbud; 'off' for none (default: "
            "the library's\n"
            "                      defaults: capacity=64M,lzo,zsmalloc,lru)\n"
            "  --content SOURCE    page contents: synth[:SEED] (default), "
            "zero,\n"
            "                      random[:SEED], corpus:FILE, image:FILE\n"
            "  --output FORMAT     text (default), json or csv\n"
            "  --verify            check every zcache hit against the page's "
            "latest content\n"
            "                      (counted in zc_wrong; exit 1 if any)\n"
            "  --progress, --no-progress\n"
            "                      progress on stderr (default: when it is a "
            "terminal)\n"
            "  --help, --version\n"
            "\n"
            "trace formats:\n");
    for (size_t i = 0; zc_trace_format_name(i); i++)
        fprintf(f, "  %-18s %s\n", zc_trace_format_name(i),
                zc_trace_format_doc(i));
    fprintf(f, "\nzcache back-ends (--zcache compressor=, allocator=, "
               "policy=):\n");
    static const char *const kinds[] = {"compressor", "allocator", "policy"};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; zc_backend_name((zc_backend_kind)k, i); i++)
            fprintf(f, "  %-10s %-10s %s\n", kinds[k],
                    zc_backend_name((zc_backend_kind)k, i),
                    zc_backend_doc((zc_backend_kind)k, i));
    fprintf(f, "\nexit status: 0 done, 2 bad arguments or bad input, 1 "
               "other failure\n");
}

static void die_usage(const char *fmt, const char *what)
{
    fprintf(stderr, NAME ": ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nTry '" NAME " --help'.\n");
    exit(2);
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
    o->zspec = "";
    o->content = "synth";
    o->output = "text";
    o->progress = -1;
    o->traces = calloc((size_t)argc, sizeof(*o->traces));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--version") == 0) {
            printf(NAME " (libzcache %s)\n", zc_version());
            exit(0);
        }
        if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
            continue;
        }
        if (strcmp(a, "--verify") == 0) {
            o->verify = 1;
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
        } else if (strcmp(a, "--page-cache") == 0) {
            o->page_cache = v;
        } else if (strcmp(a, "--zcache") == 0) {
            o->zspec = strcmp(v, "off") == 0 ? NULL : v;
        } else if (strcmp(a, "--content") == 0) {
            o->content = v;
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
    if (parse_pages(o->page_cache, o->page_size, &o->pc_pages) ||
        o->pc_pages >= 0xFFFFFFFFu)
        die_usage("--page-cache %s: want pages (e.g. 10000) or bytes with "
                  "K/M/G (e.g. 256M)",
                  o->page_cache);
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

/* The replay counters and the zcache statistics, in a fixed order shared
 * by the JSON and CSV outputs. */
#define REPLAY_FIELDS(X)                                                       \
    X(requests)                                                                \
    X(accesses)                                                                \
    X(reads) X(writes) X(pc_hits) X(zc_gets) X(zc_hits) X(disk_reads)          \
        X(zc_puts) X(zc_stored) X(resident_hits) X(pc_evictions) X(zc_wrong)

#define ZC_FIELDS(X)                                                           \
    X(puts)                                                                    \
    X(stored_puts)                                                             \
    X(succ_gets) X(failed_gets) X(invalidates) X(evictions) X(replaced)        \
        X(exclusive_drops) X(stored_pages) X(same_filled_pages) X(raw_pages)   \
            X(orig_data_size) X(compr_data_size) X(mem_used_total)             \
                X(arena_bytes) X(meta_bytes) X(work_bytes)                     \
                    X(reject_compress_poor) X(reject_nospace) X(reject_race)   \
                        X(compress_ns) X(compress_ns_rejected)                 \
                            X(decompress_ns) X(compactions) X(pools)           \
                                X(objects)

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void output(const struct opts *o, const char *format,
                   const zc_replay_stats *r, const zc_stats *z, double secs)
{
    if (strcmp(o->output, "json") == 0) {
        printf("{\"traces\":[");
        for (size_t i = 0; i < o->ntraces; i++) {
            if (i)
                putchar(',');
            json_string(o->traces[i]);
        }
        printf("],\"format\":");
        json_string(format);
        printf(",\"page_size\":%zu,\"page_cache_pages\":%" PRIu64
               ",\"zcache_spec\":",
               o->page_size, o->pc_pages);
        if (o->zspec)
            json_string(o->zspec);
        else
            printf("null");
        printf(",\"content\":");
        json_string(o->content);
#define J(f) printf(",\"" #f "\":%" PRIu64, r->f);
        REPLAY_FIELDS(J)
#undef J
        printf(",\"elapsed_s\":%.6f,\"accesses_per_s\":%.0f", secs,
               secs > 0 ? (double)r->accesses / secs : 0.0);
        if (z) {
            int first = 1;
            printf(",\"zcache\":{");
#define J(f)                                                                   \
    printf("%s\"" #f "\":%" PRIu64, first ? "" : ",", z->f);                   \
    first = 0;
            ZC_FIELDS(J)
#undef J
            printf("}");
        } else {
            printf(",\"zcache\":null");
        }
        printf("}\n");
        return;
    }
    if (strcmp(o->output, "csv") == 0) {
        printf("format,page_size,page_cache_pages,zcache_spec,content");
#define H(f) printf("," #f);
        REPLAY_FIELDS(H)
#undef H
        printf(",elapsed_s");
#define H(f) printf(",zcache." #f);
        ZC_FIELDS(H)
#undef H
        printf("\n%s,%zu,%" PRIu64 ",\"%s\",\"%s\"", format, o->page_size,
               o->pc_pages, o->zspec ? o->zspec : "off", o->content);
#define V(f) printf(",%" PRIu64, r->f);
        REPLAY_FIELDS(V)
#undef V
        printf(",%.6f", secs);
#define V(f) printf(",%" PRIu64, z ? z->f : 0);
        ZC_FIELDS(V)
#undef V
        printf("\n");
        return;
    }
    printf("trace:       ");
    for (size_t i = 0; i < o->ntraces; i++)
        printf("%s%s", i ? " " : "", o->traces[i]);
    printf(" (%s)\n", format);
    printf("page cache:  %" PRIu64 " pages of %zu bytes (LRU)\n", o->pc_pages,
           o->page_size);
    if (z)
        printf("zcache:      %s; content %s\n",
               *o->zspec ? o->zspec : "(defaults)", o->content);
    else
        printf("zcache:      off\n");
    printf("\n%" PRIu64 " requests, %" PRIu64 " page accesses (%" PRIu64
           " reads, %" PRIu64 " writes) in %.2f s, %.2f M accesses/s\n",
           r->requests, r->accesses, r->reads, r->writes, secs,
           secs > 0 ? (double)r->accesses / secs / 1e6 : 0.0);
    printf("  page-cache hits   %12" PRIu64 "  %6.2f%% of accesses\n",
           r->pc_hits, 100 * ratio(r->pc_hits, r->accesses));
    if (z) {
        printf("  zcache gets       %12" PRIu64 "  (read misses)\n",
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
           " obtained; %" PRIu64 " metadata\n",
           z->mem_used_total, z->arena_bytes, z->meta_bytes);
    printf("  density           %12.3f  (compressed bytes / arena bytes in "
           "use)\n",
           ratio(z->compr_data_size, z->mem_used_total));
    printf("  rejected          %12" PRIu64 "  poorly compressible, %" PRIu64
           " no space\n",
           z->reject_compress_poor, z->reject_nospace);
    printf("  evictions         %12" PRIu64 "\n", z->evictions);
    printf("  CPU               %12.3f  s compressing stored pages, %.3f s "
           "wasted on rejected ones, %.3f s decompressing\n",
           (double)z->compress_ns / 1e9, (double)z->compress_ns_rejected / 1e9,
           (double)z->decompress_ns / 1e9);
}

int main(int argc, char **argv)
{
    struct opts o;
    zc_trace_options topt;
    zc_trace *t = NULL;
    zc_content *content = NULL;
    zc_cache *zc = NULL;
    zc_replay *r = NULL;
    zc_replay_stats rs;
    zc_stats zs;
    zc_request req;
    char err[512];
    double t0, next_progress;
    int rc;

    parse_args(argc, argv, &o);
    if (o.progress < 0)
        o.progress = isatty(STDERR_FILENO);

    if (o.zspec) {
        zc_config cfg = zc_config_default();
        cfg.page_size = o.page_size;
        rc = zc_config_parse_error(&cfg, o.zspec, err, sizeof(err));
        if (rc) {
            fprintf(stderr, NAME ": --zcache: %s\n", err);
            return 2;
        }
        if (cfg.page_size != o.page_size) {
            fprintf(stderr,
                    NAME ": --zcache page_size=%zu differs from --page-size "
                         "%zu\n",
                    cfg.page_size, o.page_size);
            return 2;
        }
        rc = zc_cache_create(&cfg, &zc);
        if (rc) {
            fprintf(stderr, NAME ": --zcache %s: %s\n", o.zspec,
                    zc_strerror(rc));
            return rc == -ZC_EINVAL ? 2 : 1;
        }
        rc =
            zc_content_open(o.content, o.page_size, &content, err, sizeof(err));
        if (rc) {
            fprintf(stderr, NAME ": --content: %s\n", err);
            return rc == -ZC_ENOMEM ? 1 : 2;
        }
    }
    topt.format = o.format;
    topt.page_size = o.page_size;
    rc = zc_trace_open(o.traces, o.ntraces, &topt, &t, err, sizeof(err));
    if (rc) {
        fprintf(stderr, NAME ": %s\n", err);
        return rc == -ZC_ENOMEM ? 1 : 2;
    }
    rc = zc_replay_create(o.pc_pages, o.page_size, zc, content, &r);
    if (rc) {
        fprintf(stderr, NAME ": %s\n", zc_strerror(rc));
        return 1;
    }
    zc_replay_verify(r, o.verify);
    t0 = now_s();
    next_progress = t0 + 0.5;
    for (uint64_t n = 1;; n++) {
        rc = zc_trace_next(t, &req);
        if (rc == 0)
            break;
        if (rc < 0) {
            if (o.progress)
                fputc('\n', stderr);
            fprintf(stderr, NAME ": %s\n", zc_trace_error(t));
            return 2;
        }
        rc = zc_replay_request(r, &req);
        if (rc) {
            fprintf(stderr, NAME ": replay failed: %s\n", zc_strerror(rc));
            return 1;
        }
        if (o.progress && (n & 0xfff) == 0 && now_s() >= next_progress) {
            zc_replay_stats_get(r, &rs);
            fprintf(stderr,
                    "\r" NAME ": %" PRIu64 " requests, %" PRIu64
                    " accesses, %.2f M/s   ",
                    rs.requests, rs.accesses,
                    (double)rs.accesses / (now_s() - t0) / 1e6);
            next_progress = now_s() + 0.5;
        }
    }
    if (o.progress)
        fprintf(stderr, "\r%70s\r", "");
    zc_replay_stats_get(r, &rs);
    if (zc)
        zc_stats_get(zc, &zs);
    output(&o, zc_trace_format(t), &rs, zc ? &zs : NULL, now_s() - t0);
    zc_replay_destroy(r);
    zc_trace_close(t);
    zc_content_close(content);
    zc_cache_destroy(zc);
    free(o.traces);
    if (rs.zc_wrong) {
        fprintf(stderr, NAME ": %" PRIu64 " zcache hits returned wrong data\n",
                rs.zc_wrong);
        return 1;
    }
    return 0;
}
