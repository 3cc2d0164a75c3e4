/*  webpage_int.h - what the page renderers (webpage*.c) share: an HTML
    document being written to memory, escaping, and the pieces every page
    has (head, summary list, tables).  Internal to libcore/webpage*.c.

    A hearth_html_t owns its buffer until hearth_html_close hands it to
    the caller.  Writes after a failure are harmless: close then returns
    NULL.
*/
#ifndef HEARTH_LIBCORE_WEBPAGE_INT_H
#define HEARTH_LIBCORE_WEBPAGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* A document being written. */
typedef struct {
    FILE *out;  /* a memory stream (open_memstream) writing to buf */
    char *buf;  /* the document so far (the stream's) */
    size_t len; /* its length once the stream is flushed */
} hearth_html_t;

/* The page's script (webpage_js.c): polls /api/v1/state and rebuilds
   the tables of the page that body's data-page names. */
extern const char hearth_page_script[];

/* Open a document.  0, or -1 when out of memory. */
int hearth_html_open (hearth_html_t *h);

/* Close it: the document (caller frees), or NULL when a write failed. */
char *hearth_html_close (hearth_html_t *h);

/* Write s HTML-escaped (& < > " ' and NUL), fit for text and quoted
   attribute values; NULL writes "-".  The _n form writes len bytes. */
void hearth_html_text (FILE *out, const char *s);
void hearth_html_text_n (FILE *out, const char *s, size_t len);

/* Write s percent-encoded for a URL's query value (RFC 3986's unreserved
   characters kept), which is also safe inside a quoted attribute. */
void hearth_html_urlarg (FILE *out, const char *s);

/* Whether url may be a link's target: http:// or https:// only, so that
   a peer's javascript: URL stays text. */
bool hearth_html_linkable (const char *url);

/* <a href="HREF">TEXT</a> with both escaped, or TEXT alone when href is
   not linkable. */
void hearth_html_link (FILE *out, const char *href, const char *text);

/* The document's start up to the opening of its main part: title in
   <title> and <h1>, page in body's data-page (the script's page kind),
   app (or NULL) in its data-app (the application an app page shows). */
void hearth_html_head (FILE *out, const char *title, const char *page,
                       const char *app);

/* The same, with body's data-kill="1" when kill (the script then keeps
   the kill links of the rows it rebuilds). */
void hearth_html_head_kill (FILE *out, const char *title, const char *page,
                            const char *app, bool kill);

/* The document's end; with script, the polling script. */
void hearth_html_foot (FILE *out, bool script);

/* The summary list (<ul id="summary">): open, one item (value escaped),
   close. */
void hearth_html_summary_open (FILE *out);
void hearth_html_summary_item (FILE *out, const char *label, const char *value);
void hearth_html_summary_close (FILE *out);

/* A table: <h2>caption</h2> and its header row (cols ends with NULL), up
   to its open <tbody>; the row shown when it has none; its end. */
void hearth_html_table_open (FILE *out, const char *id, const char *caption,
                             const char *const cols[]);
void hearth_html_table_empty (FILE *out, const char *const cols[]);
void hearth_html_table_close (FILE *out);

/* Writes item's row (item: a member of a table's list) when it belongs
   in the table, and says whether it wrote one; ctx is the table's. */
typedef bool hearth_html_row_fn (FILE *out, const cJSON *item, const void *ctx);

/* A whole table: its head, the rows row writes for the items of list
   (the "none" row when it writes none), its end. */
void hearth_html_table (FILE *out, const char *id, const char *caption,
                        const char *const cols[], const cJSON *list,
                        hearth_html_row_fn *row, const void *ctx);

/* A cell of escaped text, of a number (%.0f), of "used / total unit". */
void hearth_html_cell (FILE *out, const char *text);
void hearth_html_cell_num (FILE *out, double n);
void hearth_html_cell_ratio (FILE *out, double used, double total,
                             const char *unit);

/* A state's cell: its text in a span of class st-STATE (the colour). */
void hearth_html_cell_state (FILE *out, const char *state);

/* The object of list whose string member key is value, or NULL. */
const cJSON *hearth_html_find (const cJSON *list, const char *key,
                               const char *value);

/* The stdout and stderr links of a log page as one cell: base is the
   worker's web_url ("-" when NULL or not linkable), or "" for the serving
   worker's own pages; the query names the log's owner by key=value
   (key2 NULL: one pair), values encoded here. */
void hearth_html_cell_logs (FILE *out, const char *base, const char *key,
                            const char *value, const char *key2,
                            const char *value2);

#endif
