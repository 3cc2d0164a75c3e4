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

/* The places task t of reduce prefers, into places (room for nservers
   + 1, each freed by the caller): the executor that keeps its input in
   memory (one that read it before, a memory level: PROCESS_LOCAL), and,
   by_bytes, the workers holding the fraction of its partition's bytes.
   How many; -1 on no memory. */
static long
s_task_places (const shuffle_servers_t *servers, const hearth_stage_t *in,
               uint64_t t, bool by_bytes, uint64_t *bytes, size_t nservers,
               const char **workers, char **places)
{
    /* its partition; every reader of a stage read whole reads 0 */
    uint32_t p = in->partitions ? (uint32_t) t : 0;
    size_t made = 0;
    if (in->cached_on && in->cached_on[p] >= 0) {
        if (asprintf (&places[made], "executor:%d", in->cached_on[p]) < 0)
            return -1;
        made++;
    }
    size_t n =
        by_bytes ? s_places (servers, in, p, bytes, nservers, workers) : 0;
    for (size_t w = 0; w < n; w++, made++)
        if (asprintf (&places[made], "worker:%s", workers[w]) < 0)
            return -1;
    return (long) made;
}

uint64_t
reduceplace_prefer (hearth_taskset_t *ts, const shuffle_servers_t *servers,
                    const hearth_stage_t *reduce, bool by_bytes)
{
    const hearth_stage_t *in = reduce->input;
    size_t nservers = shuffle_servers_count (servers);
    if (!in || !in->maps || (nservers == 0 && !in->cached_on))
        return 0; /* not a shuffle, or nothing to prefer (local[N]) */
    uint64_t *bytes = calloc (nservers + 1, sizeof *bytes);
    const char **workers = calloc (nservers + 1, sizeof *workers);
    char **places = calloc (nservers + 2, sizeof *places);
    uint64_t told = 0;
    for (uint64_t t = 0; bytes && workers && places && t < reduce->ntasks;
         t++) {
        long n = s_task_places (servers, in, t, by_bytes, bytes, nservers,
                                workers, places);
        if (n > 0
            && hearth_taskset_prefer (ts, reduce->uid, t,
                                      (const char *const *) places, (size_t) n)
                   == 0)
            told++;
        for (size_t k = 0; k < nservers + 2; k++) {
            free (places[k]);
            places[k] = NULL;
        }
    }
    free (bytes);
    free (workers);
    free (places);
    return told;
}

void
reduceplace_note (hearth_stage_t *reduce, uint64_t index, int exec_id)
{
    hearth_stage_t *in = reduce->input;
    if (!in || !in->keep_in_memory || exec_id < 0)
        return;
    uint32_t n = shuffle_partitions (in);
    if (!in->cached_on && n && (in->cached_on = malloc (n * sizeof (int32_t))))
        for (uint32_t p = 0; p < n; p++)
            in->cached_on[p] = -1;
    uint32_t p = in->partitions ? (uint32_t) index : 0;
    if (in->cached_on && p < n)
        in->cached_on[p] = exec_id;
}
