/* recording.c - a shipped recording replayed through a session (pack and
 * readahead from its header) into a 1 MiB zcache; then the models set beside
 * the kernel's own stream.  recording [traces/NAME]  (GPL-2.0-or-later) */
#include <inttypes.h>
#include <stdio.h>
#include <zcache_sim.h>

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "traces/build-c", *path;
    char zca[4096], err[1024];
    zc_session_run_options ro = {.page_cache_pages = 1000};
    zc_fidelity_options fo = {.no_curve = true};
    zc_replay_stats st;
    zc_session *s;
    zc_fidelity *f;

    snprintf(zca, sizeof(zca), "%s.zca", name);
    path = zca;
    if (zc_cache_open("capacity=1M", 4096, 0, NULL, NULL, &ro.zcache, err,
                      sizeof(err)) ||
        zc_session_open(&path, 1, NULL, &s, err, sizeof(err)) ||
        (zc_session_run(s, &ro) &&
         snprintf(err, sizeof(err), "%s", zc_session_error(s))) ||
        zc_fidelity_run(name, &fo, &f, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    zc_session_stats(s, &st);
    printf("%s (contents %s): %" PRIu64 " accesses, %" PRIu64
           " zcache hits of %" PRIu64 " gets\n",
           zca, zc_session_content(s), st.accesses, st.zc_hits, st.zc_gets);
    const zc_fidelity_result *r = zc_fidelity_get(f);
    for (size_t i = 0; i < r->nrows; i++)
        printf("%-6s %-6s gets %" PRIu64 " (kernel %" PRIu64 "), puts %" PRIu64
               " (kernel %" PRIu64 ")\n",
               r->rows[i].model, zc_fidelity_size_name(r->rows[i].size),
               r->rows[i].gets, r->kernel_gets, r->rows[i].puts,
               r->kernel_puts);
    zc_fidelity_free(f);
    zc_session_close(s);
    zc_cache_destroy(ro.zcache);
    return 0;
}
