/*  hearth-driver - runs a JSON job file (DESIGN §6) as an application.

    hearth-driver [OPTIONS] JOB.json [ARGS...]

    All of it is jobrun.c, which hearth-submit runs in its own process;
    workers run this program for cluster-mode drivers.
*/
#include "config.h"

#include "jobfile/jobrun.h"

int
main (int argc, char **argv)
{
    return jobrun_main (argc, argv);
}
