/* SPDX-License-Identifier: MIT */
/* ui.c - the live view, GET /shardlocal/ui: one page with no dependencies
 * that polls the JSON views every second. Its HTML, CSS and JS are files
 * under api/admin/ui/; the build inlines the CSS and JS into the page and
 * compiles it in (ui_embed.sh writes ui_page.c), so nothing sits beside
 * the installed binary. */

#include <string.h>

#include "api/admin/admin_int.h"
#include "storage/util.h"

#define ADMIN_HTML_TYPE "text/html; charset=utf-8"

void
admin_ui_page(struct admin_reply *out)
{
    out->status = 200;
    out->body = xmalloc(admin_ui_html_len + 1);
    memcpy(out->body, admin_ui_html, admin_ui_html_len + 1);
    out->len = admin_ui_html_len;
    out->content_type = ADMIN_HTML_TYPE;
}
