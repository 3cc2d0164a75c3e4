/*  cgroup_impl.h - what cgroup.c shares with its two backends,
    cgroup_v1.c and cgroup_v2.c: the structures, the backend operations,
    and the file helpers (cgroupfs.c).  Only those four files include
    it. */
#ifndef HEARTH_WORKER_CGROUP_IMPL_H
#define HEARTH_WORKER_CGROUP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"
#include "worker/cgroup.h"

/* What differs between v1 and v2. */
typedef struct {
    /* find the hierarchies and make the worker's directories in each
       (cgroups_add_dir), enable what must be enabled */
    int (*setup) (cgroups_t *tree, const cgroups_config_t *config,
                  hearth_error_t *err);
    /* write a new group's limits */
    int (*limits) (cgroup_t *g, const cgroup_limits_t *limits,
                   hearth_error_t *err);
    /* read its counters (memory_limit_bytes is filled by the caller) */
    void (*stats) (cgroup_t *g, cgroup_stats_t *stats);
    /* it must end for memory */
    bool (*oom) (cgroup_t *g);
    /* kill everything in it at once, -1 when it cannot (then the caller
       signals each process), else the signals sent */
    int (*kill) (cgroup_t *g);
} cgroup_backend_t;

extern const cgroup_backend_t cgroup_v1_backend;
extern const cgroup_backend_t cgroup_v2_backend;

struct cgroups {
    const cgroup_backend_t *be;   /* v1 or v2 */
    int version;                  /* 1 or 2 */
    bool plain_files;             /* a fake tree (tests) */
    size_t ndirs;                 /* hierarchies used */
    char *dirs[CGROUP_MAX_DIRS];  /* MOUNT/OWN/hearth/WORKER_ID each */
    char *kinds[CGROUP_MAX_DIRS]; /* their controllers: "memory"... */
};

struct cgroup {
    cgroups_t *tree;             /* its worker's (borrowed) */
    char *name;                  /* its directory name */
    char *dirs[CGROUP_MAX_DIRS]; /* one per hierarchy; NULL once removed */
    int64_t memory_limit_bytes;  /* as set */
    bool oom_seen;               /* cgroup_oom said so once */
};

/* The directory of g in the hierarchy of that controller, or NULL. */
const char *cgroup_dir_of (const cgroup_t *g, const char *kind);

/* Add a hierarchy: make MOUNT/OWN/hearth/WORKER_ID (and what is between)
   for the controllers kind.  Returns 0, or -1 with err. */
int cgroups_add_dir (cgroups_t *tree, const char *kind, const char *mount,
                     const char *own, const char *worker_id,
                     hearth_error_t *err);

/* The mount point of a cgroup hierarchy: fstype "cgroup2", or "cgroup"
   with controller among its options.  Returns 0, or -1 when none. */
int cgroup_find_mount (const char *fstype, const char *controller, char *buf,
                       size_t size);

/* This process's group in the hierarchy of that controller (NULL: the
   unified one, "0::"), from /proc/self/cgroup.  Returns 0 or -1. */
int cgroup_own_path (const char *controller, char *buf, size_t size);

/* Write value to DIR/FILE.  Returns 0, or -1 with errno. */
int cgroup_write (const cgroups_t *tree, const char *dir, const char *file,
                  const char *value);

/* Whether DIR/FILE exists. */
bool cgroup_has_file (const char *dir, const char *file);

/* Read DIR/FILE into buf (NUL-terminated).  Returns its length or -1. */
ssize_t cgroup_read (const char *dir, const char *file, char *buf, size_t size);

/* DIR/FILE as a number (its first word), or -1. */
int64_t cgroup_read_int (const char *dir, const char *file);

/* The number after "KEY " on a line of DIR/FILE ("oom_kill 3"), or -1. */
int64_t cgroup_read_key (const char *dir, const char *file, const char *key);

#endif
