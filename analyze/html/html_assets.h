/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's files (analyze/html/: the page template, its styles and scripts), compiled
 * into the binary by analyze/html/gen_html_assets.sh (a C file generated in the build directory),
 * so that `gpurec report --html` reads no file at run time. The build checks the template's markers
 * (docs/HTML.md).
 */
#ifndef GR_ANALYZE_HTML_ASSETS_H
#define GR_ANALYZE_HTML_ASSETS_H

#include <stddef.h>

struct gr_html_asset {
	const char *name;	   /* its file name in analyze/html/; NULL ends the table */
	const unsigned char *data; /* len bytes (and a NUL after them) */
	size_t len;
};

/* Every asset, in file-name order, ended by an entry whose name is NULL. */
extern const struct gr_html_asset gr_html_assets[];

#endif
