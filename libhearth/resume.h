/*  resume.h - a driver that takes over an application whose driver died
    (issue 39): what the earlier drivers recorded, and which stages of
    the new one's jobs it spares.

    While it runs, a driver tells the master every output its stages
    leave behind (record.h): a map output on a worker (its block server,
    the worker, its blocks' sizes, the attempt that wrote it, its shuffle
    id) or a committed part file (its name, host, size), each under the
    fingerprint of its stage (fingerprint.h).  The master keeps them
    (journaled) while the application lives, and for --resume-window
    after its driver was lost.  A driver that resumes the application
    (`hearth-submit --resume APP_ID`, or a supervised cluster-mode driver
    relaunched) gets them back (APPLICATION_OUTPUTS) before its start-up
    ends, so before any job is submitted.

    At each submit, every stage whose fingerprint has records, and whose
    outputs live where a record can find them (a partitioned stage, one
    read whole, one writing part files), becomes a held stage, as a
    persisted stage's copy is (persist.h): its tasks whose outputs are
    recorded are finished before anything runs, its map outputs are read
    where they lie, under the shuffle id they were written with; the
    others run (a stage the job reads, or its own output), or wait until
    a reader finds them missing.  A stage complete at submit is skipped.
    A stage with no records under its fingerprint runs whole, and so does
    everything after it (their fingerprints include its own).  Outputs
    the earlier driver kept in its memory (a small output read whole,
    inlineout.h; results of a stage returned to the driver) are not
    recorded: their stages run again.
*/
#ifndef HEARTH_LIBHEARTH_RESUME_H
#define HEARTH_LIBHEARTH_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libhearth/internal.h"
#include "libhearth/shuffle.h"

typedef struct resume resume_t;

/* An empty table for application app_id (copied), resumed by the
   driver of epoch.  NULL on no memory. */
resume_t *resume_new (const char *app_id, int64_t epoch);
/* Accepts NULL and a NULL *self_p; nulls it; keeps errno. */
void resume_destroy (resume_t **self_p);

/* Add a batch of recorded outputs (APPLICATION_OUTPUTS "outputs",
   borrowed; the codec checked their fields' types).  An output that is
   not whole (a map output with no server or sizes, a part with no name)
   is skipped.  0, or -1 on no memory. */
int resume_add (resume_t *self, const cJSON *outputs);

/* The outputs added. */
uint64_t resume_count (const resume_t *self);

/* The highest shuffle id recorded (0: none): new stages are numbered
   above it, so that their files never fall among the earlier ones. */
uint32_t resume_max_shuffle_id (const resume_t *self);

/* What a job's submit found. */
typedef struct {
    size_t stages;    /* in the job */
    size_t matched;   /* with records under their fingerprint */
    size_t changed;   /* without, but a stage of that name has some:
                         its definition (or an input's) changed */
    uint64_t outputs; /* recorded outputs found for them */
} resume_match_t;

/* Before job's stages are added (their fingerprints set, parents
   first): each stage with records under its fingerprint becomes held
   and resumed, its had[] (and, partitioned or read whole, its map-output
   table and shuffle id) from the records; servers learns their block
   servers.  *out says what was found.  0, or -1 on no memory. */
int resume_match (resume_t *self, hearth_job_t *job, shuffle_servers_t *servers,
                  resume_match_t *out);

/* After st's output directory was prepared (its parts[] made): the
   recorded part files of a resumed stage, for its manifest. */
void resume_fill_parts (resume_t *self, hearth_stage_t *st);

struct eventlog;
/* After job's stages were added (m: what resume_match found): the
   stages it skips (complete at submit) get a stage_skipped event in el
   (may be NULL), with the reason; a stage that changed since is said
   (a warning); and the log says "resumed APP: S of N stages skipped, T
   of U tasks to run (...)" (at warning level: always shown). */
void resume_report (resume_t *self, struct eventlog *el, hearth_job_t *job,
                    const resume_match_t *m);

/* Whether some recorded output was made by a stage named name (under
   any fingerprint). */
bool resume_knows_name (const resume_t *self, const char *name);

#endif
