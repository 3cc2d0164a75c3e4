/*  jobescape.c - a job file's raw control characters escaped; see
    jobescape.h.  Two passes over the text: one counts what the escaped
    copy needs, one writes it, so that nothing is sized from a limit.
*/
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobfile/jobescape.h"

/* The whole text of f from its start, at most max_bytes: a new buffer
   of *n bytes sized from the file (its size when it is a regular file,
   else grown as it is read), or NULL (no memory, a read error, too
   long). */
static char *
s_slurp (FILE *f, size_t max_bytes, size_t *n)
{
    struct stat st;
    int fd = fileno (f);
    size_t size = fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
                          && (uintmax_t) st.st_size < max_bytes
                      ? (size_t) st.st_size + 1 /* +1: EOF seen at once */
                      : 64 * 1024;
    char *text = NULL;
    *n = 0;
    for (;;) {
        char *more = realloc (text, size);
        if (!more)
            break;
        text = more;
        *n += fread (text + *n, 1, size - *n, f);
        if (*n > max_bytes || ferror (f))
            break;
        if (*n < size)
            return text; /* the end */
        size = size > max_bytes / 2 ? max_bytes + 1 : size * 2;
    }
    free (text);
    return NULL;
}

/* The bytes of a control character c written escaped inside a string
   (a raw newline becomes \n), into o when not NULL. */
static size_t
s_escape_one (unsigned char c, char *o)
{
    static const char hex[] = "0123456789abcdef";
    char short_form = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : 0;
    if (o && short_form)
        memcpy (o, (char[]){'\\', short_form}, 2);
    else if (o)
        memcpy (o, (char[]){'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}, 6);
    return short_form ? 2 : 6;
}

/* The n bytes of text with every control character inside a string
   escaped: what cJSON, which job files were read with before, accepted
   and yajl does not.  Into out when not NULL; returns the bytes that
   makes (one pass to size the buffer, one to fill it). */
static size_t
s_escape_controls (const char *text, size_t n, char *out)
{
    bool in_string = false, escaped = false;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char) text[i];
        if (in_string && !escaped && c < 0x20) {
            len += s_escape_one (c, out ? out + len : NULL);
            continue;
        }
        if (in_string && !escaped && c == '"')
            in_string = false;
        else if (!in_string && c == '"')
            in_string = true;
        escaped = in_string && !escaped && c == '\\';
        if (out)
            out[len] = (char) c;
        len++;
    }
    return len;
}

char *
jobescape_read (FILE *f, size_t max_bytes, size_t *len)
{
    size_t n = 0;
    char *text = s_slurp (f, max_bytes, &n);
    *len = text ? s_escape_controls (text, n, NULL) : 0;
    char *fixed = *len ? malloc (*len) : NULL;
    if (fixed)
        s_escape_controls (text, n, fixed);
    free (text);
    return fixed;
}
