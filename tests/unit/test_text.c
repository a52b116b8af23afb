/* SPDX-License-Identifier: MIT */
/* analyze/util/text.c: the one escaping rule for names from a trace in text outputs. */
#include <stdlib.h>
#include <string.h>

#include "analyze/util/text.h"
#include "test.h"

#define ESC(in, want) CHECK_STR(gr_text_esc(buf, sizeof(buf), (in)), (want))

static void test_escapes(void)
{
	char buf[GR_TEXT_LEN];
	const char *clean =
	    "python3 train.py --lr=0.1 /tmp/\xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80";

	/* clean text, UTF-8 included, is the caller's own string: never copied, never cut */
	CHECK(gr_text_esc(buf, sizeof(buf), clean) == clean);
	CHECK(!gr_text_unsafe(clean));
	CHECK(gr_text_esc(buf, sizeof(buf), NULL) == NULL);
	ESC("\x1b[31mevil\a", "\\e[31mevil\\a");
	ESC("a\tb\nc\rd\be\vf\fg", "a\\tb\\nc\\rd\\be\\vf\\fg");
	ESC("del\x7f nul\x01 us\x1f", "del\\x7f nul\\x01 us\\x1f");
	ESC("back\\slash\x1b", "back\\\\slash\\e");
	/* invalid UTF-8: a lone continuation byte, a lead byte cut short, an overlong '/', a
	 * surrogate, past U+10FFFF; and a C1 control (CSI, U+009B) encoded as valid UTF-8 */
	ESC("x\x9by", "x\\x9by");
	ESC("\xc3(", "\\xc3(");
	ESC("\xc0\xaf", "\\xc0\\xaf");
	ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");
	ESC("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	ESC("\xc2\x9b"
	    "1m",
	    "\\xc2\\x9b1m");
	ESC("\xc2\xa0", "\xc2\xa0"); /* U+00A0, the first one past C1, passes */
	CHECK(gr_text_unsafe("\x1b"));
}

static void test_cut_and_stream(void)
{
	char small[8], *f_buf = NULL;
	size_t f_len = 0;
	FILE *f;

	/* cut between escapes, never inside one; the length returned is the whole text's */
	CHECK_EQ_U64(gr_text_escape(small, sizeof(small), "ab\x1b\x1b\x1b"), 8);
	CHECK_STR(small, "ab\\e\\e");
	CHECK_EQ_U64(gr_text_escape(small, sizeof(small), "abcde\xe2\x86\x92x"), 9);
	CHECK_STR(small, "abcde");
	CHECK_EQ_U64(gr_text_escape(small, sizeof(small), "abc"), 3);
	CHECK_STR(small, "abc");

	f = open_memstream(&f_buf, &f_len);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(gr_text_fputs("\x1b[31mevil\a\n\xff", f) == 0);
	fclose(f);
	CHECK_STR(f_buf, "\\e[31mevil\\a\\n\\xff");
	free(f_buf);
}

int main(void)
{
	RUN_TEST(test_escapes);
	RUN_TEST(test_cut_and_stream);
	TEST_EXIT();
}
