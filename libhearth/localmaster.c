/*  localmaster.c - what a --master names: a local mode or a cluster's
    URLs (local.h's local_parse_master).  Apart from local.c, which runs
    the local modes, so that the settings' check (opts.c) can say a bad
    --master is a usage error before anything starts, without opts.c and
    local.c calling each other. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libcore/masters.h"
#include "libhearth/local.h"

int
local_parse_master (const char *master, local_setup_t *setup,
                    hearth_error_t *err)
{
    int a, b, c, n = 0;
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    memset (setup, 0, sizeof *setup);
    if (!master || strcmp (master, "local") == 0) {
        setup->mode = MODE_LOCAL;
        setup->cores = 1;
    }
    else if (strcmp (master, "local[*]") == 0) {
        setup->mode = MODE_LOCAL;
        setup->cores = cpus > 0 ? (int) cpus : 1;
    }
    else if (sscanf (master, "local[%d]%n", &a, &n) == 1 && master[n] == '\0'
             && a >= 1 && a <= 65536) {
        setup->mode = MODE_LOCAL;
        setup->cores = a;
    }
    else if (sscanf (master, "local-cluster[%d,%d,%d]%n", &a, &b, &c, &n) == 3
             && master[n] == '\0' && a >= 1 && a <= 64 && b >= 1 && c >= 1) {
        setup->mode = MODE_LOCAL_CLUSTER;
        setup->workers = a;
        setup->worker_cores = b;
        setup->worker_memory_mb = c;
    }
    else if (strncmp (master, "tcp://", 6) == 0) {
        hearth_error_t lerr;
        if (hearth_masters_check (master, &lerr) < 0)
            return hearth_errprintf (err, "bad master '%s': %s", master,
                                     lerr.text);
        setup->mode = MODE_CLUSTER;
        snprintf (setup->master_url, sizeof setup->master_url, "%s", master);
    }
    else
        return hearth_errprintf (err,
                                 "unknown master '%s' (expected "
                                 "local[N], local[*], local[N,F], local[*,F], "
                                 "local-cluster[W,C,M] or "
                                 "tcp://HOST:PORT[,tcp://HOST:PORT...])",
                                 master);
    return 0;
}
