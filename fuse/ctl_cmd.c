/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuse/ctl_cmd.h"

static const char usage[] = "expected \"mark <label>\", \"trace on\", \"trace off\", "
			    "\"crash\", \"recover\" or \"reload\"";

static const struct {
	const char *word;
	enum dutfs_ctl_verb verb;
} bare_verbs[] = {
	{ "crash", DUTFS_CTL_CRASH }, { "recover", DUTFS_CTL_RECOVER }, { "reload", DUTFS_CTL_RELOAD },
};

static int word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

int dutfs_ctl_parse(const char *buf, size_t len, struct dutfs_ctl_cmd *ret, struct dut_error *err)
{
	struct dutfs_ctl_cmd c = { 0 };
	const char *s = buf, *e = buf + len, *sp;

	if (len > DUTFS_CTL_WRITE_MAX) {
		dut_error_set(err, "command too long (%zu bytes; one command per write)", len);
		return -EINVAL;
	}
	if (e > s && e[-1] == '\n')
		e--;
	for (const char *p = s; p < e; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '\n') {
			dut_error_set(err, "one command per write: found a newline inside the command");
			return -EINVAL;
		}
		if (ch < 0x20 || ch == 0x7f) {
			dut_error_set(err, "control character 0x%02x in command; %s", ch, usage);
			return -EINVAL;
		}
	}
	while (s < e && *s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		e--;
	if (s == e) {
		dut_error_set(err, "empty command; %s", usage);
		return -EINVAL;
	}
	sp = memchr(s, ' ', (size_t)(e - s));
	if (!sp)
		sp = e;
	if (word_is(s, (size_t)(sp - s), "mark")) {
		const char *l = sp;
		size_t n;

		while (l < e && *l == ' ')
			l++;
		n = (size_t)(e - l);
		if (n == 0) {
			dut_error_set(err, "mark needs a label (mark <label>)");
			return -EINVAL;
		}
		if (n > DUTFS_CTL_LABEL_MAX) {
			dut_error_set(err, "mark label is %zu bytes; at most %d", n, DUTFS_CTL_LABEL_MAX);
			return -EINVAL;
		}
		c.verb = DUTFS_CTL_MARK;
		memcpy(c.label, l, n);
		c.label[n] = '\0';
	} else if (word_is(s, (size_t)(sp - s), "trace")) {
		const char *a = sp;

		while (a < e && *a == ' ')
			a++;
		if (word_is(a, (size_t)(e - a), "on")) {
			c.verb = DUTFS_CTL_TRACE_ON;
		} else if (word_is(a, (size_t)(e - a), "off")) {
			c.verb = DUTFS_CTL_TRACE_OFF;
		} else {
			dut_error_set(err, "trace takes \"on\" or \"off\", not \"%.*s\"", (int)(e - a), a);
			return -EINVAL;
		}
	} else {
		size_t k, nv = sizeof(bare_verbs) / sizeof(bare_verbs[0]);

		for (k = 0; k < nv && !word_is(s, (size_t)(sp - s), bare_verbs[k].word); k++)
			;
		if (k == nv) {
			dut_error_set(err, "unknown command \"%.*s\"; %s", (int)(sp - s), s, usage);
			return -EINVAL;
		}
		if (sp != e) {
			dut_error_set(err, "%s takes no argument, found \"%.*s\"", bare_verbs[k].word,
				      (int)(e - sp - 1), sp + 1);
			return -EINVAL;
		}
		c.verb = bare_verbs[k].verb;
	}
	*ret = c;
	return 0;
}
