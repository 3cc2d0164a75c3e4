/*  shuffle_fixture.h - a job of two stages for the driver's shuffle
    tests (test_driver_shuffle.c, test_inlineout.c): built by hand, no
    engine, freed with what the shuffle made in it. */
#ifndef HEARTH_TESTS_SHUFFLE_FIXTURE_H
#define HEARTH_TESTS_SHUFFLE_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

/* A job of a map stage (uid 1, nmaps tasks, R partitions) read by a
   reduce stage (uid 2, R tasks). */
typedef struct {
    hearth_job_t job;
    hearth_stage_t map, reduce;
    hearth_stage_t *stages[2];
} s_job_t;

static inline void
s_job_init (s_job_t *j, uint64_t nmaps, uint32_t r)
{
    memset (j, 0, sizeof *j);
    j->job.name = "job";
    j->map = (hearth_stage_t){.job = &j->job,
                              .name = "map",
                              .uid = 1,
                              .shuffle_id = 1, /* as work.c gives it */
                              .ntasks = nmaps,
                              .partitions = r};
    j->reduce = (hearth_stage_t){.job = &j->job,
                                 .name = "reduce",
                                 .uid = 2,
                                 .shuffle_id = 2,
                                 .ntasks = r,
                                 .input = &j->map};
    j->stages[0] = &j->map;
    j->stages[1] = &j->reduce;
    j->job.stages = j->stages;
    j->job.nstages = 2;
    j->map.maps = calloc (nmaps, sizeof *j->map.maps);
}

static inline void
s_job_free (s_job_t *j)
{
    inlineout_free (&j->map);
    free (j->map.maps);
    hearth_manifest_free (j->map.parts, j->map.parts ? j->map.ntasks : 0);
    j->map.parts = NULL;
}

/* A FINISHED update of a map task with sizes (R of them) in msg. */
static inline cJSON *
s_finished (hearth_msg_t *msg, const uint64_t *sizes, uint32_t r)
{
    zframe_t *f = zframe_new (NULL, (size_t) r * 8);
    unsigned char *p = zframe_data (f);
    for (uint32_t i = 0; i < r; i++)
        for (int b = 0; b < 8; b++)
            p[8 * i + b] = (unsigned char) (sizes[i] >> (8 * b));
    cJSON *u = cJSON_CreateObject ();
    cJSON_AddNumberToObject (u, "map_sizes", hearth_msg_add_frame (msg, &f));
    return u;
}

static inline uint64_t
s_le (const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#endif
