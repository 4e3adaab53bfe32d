/*
 * replay_report.c - zcache-replay's outputs: the text report, JSON and CSV
 * of a run (every counter by the library's field lists, statsout.c; the
 * rates by zc_replay_rates()), and an adaptive run's split over time
 * (--split-csv, --plot).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "plot.h"
#include "replay.h"
#include "split_log.h"
#include "statsout.h"

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

void replay_output(const struct opts *o, const struct result *res)
{
    const char *format = res->format, *zc_config_str = res->zc_config;
    const zc_replay_stats *r = &res->rs;
    const zc_stats *z = res->have_zs ? &res->zs : NULL;
    double secs = res->secs;
    zc_rates rt = zc_replay_rates(r);
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
                res->epochs, res->moves, res->mean_share, res->end_pc_pages,
                res->end_zc_bytes);
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
            printf(",true,%zu,%zu,%.3f,%" PRIu64 ",%" PRIu64, res->epochs,
                   res->moves, res->mean_share, res->end_pc_pages,
                   res->end_zc_bytes);
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
           r->pc_hits, rt.pc_hit);
    if (z) {
        printf("  zcache gets       %12" PRIu64
               "  (read misses and pages read ahead)\n",
               r->zc_gets);
        printf("  zcache hits       %12" PRIu64 "  %6.2f%% of gets: disk "
               "reads avoided\n",
               r->zc_hits, rt.zc_get_hit);
    }
    printf("  disk reads        %12" PRIu64 "  %6.2f%% of reads\n",
           r->disk_reads, rt.disk_read);
    printf("  resident hits     %12" PRIu64 "  %6.2f%% of accesses (page "
           "in either tier)\n",
           r->resident_hits, rt.in_memory);
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
           r->zc_puts, r->zc_stored, rt.kept);
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
           zc_stats_density(z), ratio(z->frag_bytes, z->mem_used_total));
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

int replay_split_outputs(const struct opts *o, const zc_replay *rp,
                         struct result *res)
{
    const zc_replay_stats *rs = &res->rs;
    const zc_adapt_epoch *e;
    size_t n = zc_replay_adapt_log(rp, &e), moves = 0;
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
        res->epochs = n;
        res->moves = moves;
        res->mean_share = n ? share_sum / (double)n : 0.0;
        res->end_pc_pages = pc;
        res->end_zc_bytes = zb;
        snprintf(res->adapt_summary, sizeof(res->adapt_summary),
                 "\nadaptive split of %s: %zu epochs, %zu move%s; the zcache's "
                 "share averaged %.1f%%,\n  ended at %" PRIu64
                 " page-cache pages + %" PRIu64 " zcache bytes; %" PRIu64
                 " evictions not put (%" PRIu64 " probed)\n",
                 o->memory, n, moves, moves == 1 ? "" : "s",
                 n ? share_sum / (double)n : 0.0, pc, zb, rs->zc_skipped,
                 rs->zc_probes);
        if (n && (!o->adapt.put_ns || !o->adapt.get_ns)) {
            /* measured prices: another run, another split */
            size_t len = strlen(res->adapt_summary);
            snprintf(res->adapt_summary + len, sizeof(res->adapt_summary) - len,
                     "  priced with this run's measured CPU (put %.1f us, "
                     "get %.1f us at the end): it depends on the\n  machine "
                     "and its load; --adapt put=T,get=T makes a run "
                     "reproducible\n",
                     e[n - 1].put_ns / 1000.0, e[n - 1].get_ns / 1000.0);
        }
    }
    return 0;
}
