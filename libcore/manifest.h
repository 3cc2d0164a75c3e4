/*  manifest.h - where the part files of an output directory are: the
    manifest a finished output stage writes into DIR/_SUCCESS, and reads
    back for a job's "foreach": {"parts": DIR}.

    A stage's "output" may be a directory every node sees (a shared
    filesystem) or the same path on each node's own disk: each task's
    executor commits its part file where it ran (LAUNCH_TASKS
    "commit_to").  So that a later job can read each part where it lies,
    as HDFS block locations let Spark's readers do, the driver writes into
    _SUCCESS (empty before: Hadoop's marker; S3A's committers write a JSON
    summary there too) one JSON object:

        {"hearth_manifest": 1,
         "parts": [{"name": "part-00000", "host": "10.0.0.7",
                    "bytes": 1234}, ...]}

    in task order; "host" is the address of the executor that committed
    it.  A reader ignores fields it does not know.
*/
#ifndef HEARTH_MANIFEST_H
#define HEARTH_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

/* One part file. */
typedef struct {
    char *name;     /* "part-00000" (a file name, no '/') */
    char *host;     /* where it was committed, or NULL: not known */
    uint64_t bytes; /* its size when committed */
} hearth_part_file_t;

/* Most parts a manifest holds (a stage's tasks at most). */
#define HEARTH_MANIFEST_MAX_PARTS 1000000

/* Write DIR/_SUCCESS holding the n parts (replacing what is there, the
   name never followed if it is a link).  0, or -1 with err. */
int hearth_manifest_write (const char *dir, const hearth_part_file_t *parts,
                           size_t n, hearth_error_t *err);

/* Read DIR/_SUCCESS: *parts (caller frees: hearth_manifest_free) and *n.
   An empty _SUCCESS (an output of another tool, or of an older Hearth)
   lists DIR's part-* files in name order, with no host.  -1 with err: no
   _SUCCESS (not a finished output), or one that is not a manifest (its
   part names must be plain file names, each given once; no NUL byte,
   raw or escaped; nothing after the object). */
int hearth_manifest_read (const char *dir, hearth_part_file_t **parts,
                          size_t *n, hearth_error_t *err);

/* Free n parts read (accepts NULL). */
void hearth_manifest_free (hearth_part_file_t *parts, size_t n);

#endif
