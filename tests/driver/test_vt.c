/*  test_vt.c - renders what a program wrote to a terminal, for the tests
    of the progress display (test-progress.sh).

    test-vt < TYPESCRIPT

    Reads the bytes a terminal received (what `script` records) and prints
    the text a person would see once they were all drawn, one line per
    row, trailing blanks removed.  The screen has no height: nothing
    scrolls away, so every row ever written is there (the scrollback as
    well).  It knows what the display uses and a little more: carriage
    return, newline, backspace, tab, and the CSI sequences A B C D
    (cursor moves), G (column), K (erase in line) and J (erase below);
    other escape sequences are skipped.  A line has no width either: a
    terminal would wrap a line longer than its width, which the display
    never draws (the test checks that on the lines themselves).
*/
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row of the screen. */
typedef struct {
    char *text; /* its cells, blanks where nothing was written */
    size_t len; /* cells in use */
} s_row_t;

/* The screen and its cursor. */
typedef struct {
    s_row_t *rows; /* every row, from the first */
    size_t nrows;  /* rows in use */
    size_t row;    /* the cursor's row */
    size_t col;    /* the cursor's column */
} s_screen_t;

static s_row_t *
s_row (s_screen_t *s, size_t r)
{
    while (s->nrows <= r) {
        s_row_t *rows = realloc (s->rows, (s->nrows + 1) * sizeof *rows);
        if (!rows) {
            perror ("test-vt");
            exit (1);
        }
        s->rows = rows;
        s->rows[s->nrows++] = (s_row_t){NULL, 0};
    }
    return &s->rows[r];
}

static void
s_put (s_screen_t *s, char c)
{
    s_row_t *r = s_row (s, s->row);
    if (s->col >= r->len) {
        char *text = realloc (r->text, s->col + 1);
        if (!text) {
            perror ("test-vt");
            exit (1);
        }
        memset (text + r->len, ' ', s->col + 1 - r->len);
        r->text = text;
        r->len = s->col + 1;
    }
    r->text[s->col++] = c;
}

/* Erase row r from column from on. */
static void
s_erase_from (s_screen_t *s, size_t r, size_t from)
{
    s_row_t *row = s_row (s, r);
    if (from < row->len)
        row->len = from;
}

/* A CSI sequence: numeric parameters, then the final byte. */
static void
s_csi (s_screen_t *s, FILE *in)
{
    int c, n = 0, mode = 0;
    bool have = false;
    while ((c = fgetc (in)) != EOF && (isdigit (c) || c == ';' || c == '?')) {
        if (isdigit (c)) {
            n = n * 10 + (c - '0');
            have = true;
        }
    }
    mode = n;
    if (!have)
        n = 1;
    switch (c) {
    case 'A':
        s->row = s->row >= (size_t) n ? s->row - n : 0;
        break;
    case 'B':
        s->row += n;
        break;
    case 'C':
        s->col += n;
        break;
    case 'D':
        s->col = s->col >= (size_t) n ? s->col - n : 0;
        break;
    case 'G':
        s->col = n > 0 ? n - 1 : 0;
        break;
    case 'K':
        if (mode == 0)
            s_erase_from (s, s->row, s->col);
        else {
            s_row_t *row = s_row (s, s->row);
            size_t end = mode == 2 ? row->len : s->col + 1;
            for (size_t i = 0; i < end && i < row->len; i++)
                row->text[i] = ' ';
        }
        break;
    case 'J':
        if (mode == 0) {
            s_erase_from (s, s->row, s->col);
            for (size_t r = s->row + 1; r < s->nrows; r++)
                s->rows[r].len = 0;
        }
        break;
    default: /* colours and the rest: nothing to render */
        break;
    }
}

int
main (void)
{
    s_screen_t s = {NULL, 0, 0, 0};
    int c;
    while ((c = fgetc (stdin)) != EOF) {
        if (c == '\r')
            s.col = 0;
        else if (c == '\n')
            s.row++;
        else if (c == '\b')
            s.col = s.col ? s.col - 1 : 0;
        else if (c == '\t')
            s.col = (s.col / 8 + 1) * 8;
        else if (c == 033) {
            int next = fgetc (stdin);
            if (next == '[')
                s_csi (&s, stdin);
            /* any other escape: its next byte is part of it */
        }
        else if (c >= ' ' && c != 0x7f)
            s_put (&s, (char) c);
    }
    for (size_t r = 0; r < s.nrows; r++) {
        s_row_t *row = &s.rows[r];
        size_t len = row->len;
        while (len && row->text[len - 1] == ' ')
            len--;
        printf ("%.*s\n", (int) len, row->text ? row->text : "");
        free (row->text);
    }
    free (s.rows);
    return 0;
}
