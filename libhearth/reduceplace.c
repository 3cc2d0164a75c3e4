/*  reduceplace.c - where a reduce task would rather run; see
    reduceplace.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "libhearth/reduceplace.h"

/* Names of the workers of the servers holding at least the fraction of
   partition p's bytes, into places (room for nservers); how many. */
static size_t
s_places (const shuffle_servers_t *servers, const hearth_stage_t *in,
          uint32_t p, uint64_t *bytes, size_t nservers, const char **places)
{
    uint64_t total = 0;
    for (size_t s = 0; s < nservers; s++)
        bytes[s] = 0;
    for (uint64_t m = 0; m < in->ntasks; m++) {
        const mapout_t *mo = &in->maps[m];
        if (!mo->sizes)
            return 0; /* not all there: no preference */
        if (mo->server == SHUFFLE_KEPT)
            continue; /* comes with the launch, wherever it goes */
        total += mo->sizes[p];
        if (mo->server < nservers)
            bytes[mo->server] += mo->sizes[p];
    }
    size_t n = 0;
    for (size_t s = 0; total && s < nservers; s++) {
        const char *worker = shuffle_servers_worker (servers, (uint32_t) s);
        if (worker && (double) bytes[s] >= REDUCEPLACE_FRACTION * total)
            places[n++] = worker;
    }
    return n;
}

uint64_t
reduceplace_prefer (hearth_taskset_t *ts, const shuffle_servers_t *servers,
                    const hearth_stage_t *reduce)
{
    const hearth_stage_t *in = reduce->input;
    size_t nservers = shuffle_servers_count (servers);
    if (!in || !in->maps || nservers == 0)
        return 0; /* not a shuffle, or no block server (local[N]) */
    uint64_t *bytes = calloc (nservers, sizeof *bytes);
    const char **workers = calloc (nservers, sizeof *workers);
    char **places = calloc (nservers, sizeof *places);
    uint64_t told = 0;
    for (uint64_t t = 0; bytes && workers && places && t < reduce->ntasks;
         t++) {
        /* its partition; every reader of a stage read whole reads 0 */
        uint32_t p = in->partitions ? (uint32_t) t : 0;
        size_t n = s_places (servers, in, p, bytes, nservers, workers);
        size_t made = 0;
        for (; made < n; made++)
            if (asprintf (&places[made], "worker:%s", workers[made]) < 0)
                break;
        if (made == n && n > 0
            && hearth_taskset_prefer (ts, reduce->uid, t,
                                      (const char *const *) places, n)
                   == 0)
            told++;
        for (size_t k = 0; k < made; k++)
            free (places[k]);
    }
    free (bytes);
    free (workers);
    free (places);
    return told;
}
