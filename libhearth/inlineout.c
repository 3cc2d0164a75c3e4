/*  inlineout.c - small map outputs of a stage read whole, kept by the
    driver; see inlineout.h. */
#include "config.h"

#include <string.h>

#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

void
inlineout_reserve (hearth_stage_t *st, uint64_t *left)
{
    st->inline_max = 0;
    st->inline_reserved = 0;
    /* sorted outputs are merged by key from files: never kept */
    if (!st->read_whole || st->sort || st->ntasks == 0)
        return;
    uint64_t share = *left / st->ntasks;
    if (share > INLINEOUT_STAGE_MAX)
        share = INLINEOUT_STAGE_MAX;
    if (share < INLINEOUT_MIN)
        return;
    st->inline_max = (uint32_t) share;
    st->inline_reserved = share * st->ntasks;
    *left -= st->inline_reserved;
}

void
inlineout_release (hearth_job_t *job, uint64_t *left)
{
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        /* the blocks go with their reservation: an ended job may stay
           with its user long after (until hearth_job_destroy) */
        for (uint64_t m = 0; st->maps && m < st->ntasks; m++)
            inlineout_drop (st, m);
        *left += st->inline_reserved;
        st->inline_reserved = 0;
        st->inline_max = 0;
        zframe_destroy (&st->inline_cache);
    }
}

bool
inlineout_acceptable (const hearth_stage_t *st, zframe_t *block)
{
    return !block
           || (st->inline_max > 0 && zframe_size (block) > 0
               && zframe_size (block) <= st->inline_max);
}

int
inlineout_keep (hearth_stage_t *st, uint64_t index, uint32_t attempt,
                zframe_t *block)
{
    zframe_t *copy = zframe_dup (block);
    uint64_t *sizes = malloc (sizeof *sizes);
    if (!copy || !sizes) {
        zframe_destroy (&copy);
        free (sizes);
        return -1;
    }
    sizes[0] = zframe_size (block);
    inlineout_drop (st, index);
    zframe_destroy (&st->inline_cache); /* it lacked this block */
    st->maps[index] = (mapout_t){sizes, SHUFFLE_KEPT, attempt, copy};
    return 0;
}

void
inlineout_drop (hearth_stage_t *st, uint64_t index)
{
    mapout_t *mo = &st->maps[index];
    if (mo->block)
        zframe_destroy (&st->inline_cache); /* it held this block */
    zframe_destroy (&mo->block);
    free (mo->sizes);
    mo->sizes = NULL;
}

zframe_t *
inlineout_frame (hearth_stage_t *in, bool *failed)
{
    *failed = false;
    if (in->inline_cache || !in->inline_max)
        return in->inline_cache;
    size_t total = 0;
    for (uint64_t m = 0; m < in->ntasks; m++)
        if (in->maps[m].block)
            total += zframe_size (in->maps[m].block);
    if (total == 0)
        return NULL;
    zframe_t *f = zframe_new (NULL, total);
    if (!f) {
        *failed = true;
        return NULL;
    }
    unsigned char *p = zframe_data (f);
    for (uint64_t m = 0; m < in->ntasks; m++)
        if (in->maps[m].block) {
            size_t n = zframe_size (in->maps[m].block);
            memcpy (p, zframe_data (in->maps[m].block), n);
            p += n;
        }
    in->inline_cache = f;
    return f;
}
