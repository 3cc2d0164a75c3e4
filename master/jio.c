/*  jio.c - the journal's few POSIX file helpers; see jio.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"
#include "master/jio.h"

char *
jio_read_file (const char *path, size_t *len)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NULL;
    if (fstat (fd, &st) < 0) {
        close (fd);
        return NULL;
    }
    char *buf = malloc ((size_t) st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t) st.st_size) {
        ssize_t n = read (fd, buf + got, (size_t) st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t) n;
    }
    close (fd);
    if (buf)
        buf[got] = '\0';
    *len = got;
    return buf;
}

void
jio_rm_tree (const char *path)
{
    hearth_rm_tree (path);
}
