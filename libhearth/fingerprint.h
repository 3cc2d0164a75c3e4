/*  fingerprint.h - what a stage computes, as one hash (issue 39).

    A driver that resumes an application (resume.h) is given the outputs
    an earlier driver of it recorded, each under the fingerprint of the
    stage that made it.  A stage of the new driver's job reuses them only
    when its own fingerprint is the same: the same name, the same tasks
    (their command, environment, function and argument templates, in
    their groups, before the per-task placeholders, which depend only on
    the task's index), the same shape (tasks, partitions, sorted or not,
    output directory), the same inputs (their fingerprints: a changed
    stage changes everything after it) and the same shipped libraries and
    files (their content hashes).  What does not change what a task
    writes (timeouts, pools, preferences, resources) is left out, so a
    job resumed with another timeout still reuses its outputs.

    The hash is SHA-1 (czmq's zdigest, as the shipped files' hashes), of
    a length-prefixed serialization, so that no two definitions run
    together into the same bytes.
*/
#ifndef HEARTH_LIBHEARTH_FINGERPRINT_H
#define HEARTH_LIBHEARTH_FINGERPRINT_H

#include "libhearth/internal.h"

/* Hex digits of a fingerprint (SHA-1). */
#define FINGERPRINT_LEN 40

/* Set st->fp from st's definition, its parents' fingerprints (set
   before: stages in topological order) and files, the digest of what
   the application ships (fingerprint_files; "" when nothing).  0, or -1
   on no memory. */
int fingerprint_stage (hearth_stage_t *st, const char *files);

/* The digest of the shipped items, each "name hash" (any order given:
   sorted first), into out (FINGERPRINT_LEN + 1 bytes). */
void fingerprint_files (const char *const *items, size_t n, char *out);

#endif
