/*  apipause.h - a C API test driver's pause between its jobs, for its
    script to act there (kill a worker): with DIR/pause, it writes
    DIR/ready.K and waits (60 s at most) for DIR/go.K. */
#ifndef HEARTH_TESTS_DRIVER_APIPAUSE_H
#define HEARTH_TESTS_DRIVER_APIPAUSE_H

#include <stdio.h>
#include <unistd.h>

static inline void
apipause (const char *dir, int k)
{
    char path[4096];
    snprintf (path, sizeof path, "%s/pause", dir);
    if (access (path, F_OK) != 0)
        return;
    snprintf (path, sizeof path, "%s/ready.%d", dir, k);
    FILE *f = fopen (path, "w");
    if (f)
        fclose (f);
    snprintf (path, sizeof path, "%s/go.%d", dir, k);
    for (int i = 0; i < 600 && access (path, F_OK) != 0; i++)
        usleep (100 * 1000);
}

#endif
