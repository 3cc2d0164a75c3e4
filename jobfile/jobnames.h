/*  jobnames.h - the files a job file names: its libraries ("lib") and
    the files of its tasks ("files"), found the one way hearth-driver and
    hearth-submit (which ships them in cluster mode) both look for them.

    A name is a string or an array of strings (jobfile.c checks that).
    An absolute path is taken as it is; another is looked for beside the
    job file, then in the current directory.  A name with the base name
    of one given on the command line (--lib, --files) is that one, and
    left out: the command line wins.
*/
#ifndef HEARTH_JOBFILE_JOBNAMES_H
#define HEARTH_JOBFILE_JOBNAMES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

/* The top-level "broadcast" of root (a job file's JSON, checked by
   jobcheck_top; job_path its path): "NAME=PATH" for each variable, its
   file found as jobnames_resolve finds one.  A new NULL-terminated array
   in *entries for jobnames_destroy(), its length in *n.  Returns 0, or
   -1 with err ("broadcast NAME: cannot read PATH: REASON"). */
int jobnames_broadcast (const cJSON *root, const char *job_path,
                        char ***entries, size_t *n, hearth_error_t *err);

/* The paths of the names under key in root (a job file's JSON, borrowed;
   job_path its path), less those given (ngiven paths).  A new
   NULL-terminated array in *paths for jobnames_destroy(), its length in
   *n.  Returns 0, or -1 with err ("KEY: cannot read PATH: REASON") when
   a name is found nowhere, or on no memory. */
int jobnames_resolve (const cJSON *root, const char *key, const char *job_path,
                      const char *const *given, size_t ngiven, char ***paths,
                      size_t *n, hearth_error_t *err);
/* Free such an array.  Accepts NULL; nulls the pointer. */
void jobnames_destroy (char ***paths_p);

#endif
