# SPDX-License-Identifier: MIT
# Is the input one JSON value (RFC 8259)? Exit 0 when it is; else one line
# on stderr saying where it stopped, exit 1. The CLI tests cannot count on
# jq or python (setup.sh installs neither); POSIX awk is enough for a
# recursive-descent check of the grammar.
#   usage: awk -f json_valid.awk FILE
{ s = s $0 "\n" }

END {
	n = length(s)
	p = 1
	ws()
	if (!value())
		fail("a value expected")
	ws()
	if (p <= n)
		fail("text after the value")
	exit 0
}

function fail(why) {
	printf "json: %s at character %d: '%s'\n", why, p, substr(s, p, 24) > "/dev/stderr"
	exit 1
}

function ws() {
	while (p <= n && index(" \t\r\n", substr(s, p, 1)))
		p++
}

function value(    c) {
	c = substr(s, p, 1)
	if (c == "{")
		return object()
	if (c == "[")
		return array()
	if (c == "\"")
		return string()
	if (substr(s, p, 4) == "true" || substr(s, p, 4) == "null") {
		p += 4
		return 1
	}
	if (substr(s, p, 5) == "false") {
		p += 5
		return 1
	}
	return number()
}

function object() {
	p++
	ws()
	if (substr(s, p, 1) == "}") {
		p++
		return 1
	}
	for (;;) {
		ws()
		if (!string())
			fail("a key expected")
		ws()
		if (substr(s, p, 1) != ":")
			fail("':' expected")
		p++
		ws()
		if (!value())
			fail("a value expected")
		ws()
		if (substr(s, p, 1) == ",") {
			p++
			continue
		}
		if (substr(s, p, 1) == "}") {
			p++
			return 1
		}
		fail("',' or '}' expected")
	}
}

function array() {
	p++
	ws()
	if (substr(s, p, 1) == "]") {
		p++
		return 1
	}
	for (;;) {
		ws()
		if (!value())
			fail("a value expected")
		ws()
		if (substr(s, p, 1) == ",") {
			p++
			continue
		}
		if (substr(s, p, 1) == "]") {
			p++
			return 1
		}
		fail("',' or ']' expected")
	}
}

function string(    c) {
	if (substr(s, p, 1) != "\"")
		return 0
	for (p++; p <= n; p++) {
		c = substr(s, p, 1)
		if (c == "\"") {
			p++
			return 1
		}
		if (c == "\n" || c == "\t")
			fail("a control character in a string")
		if (c == "\\") {
			p++
			c = substr(s, p, 1)
			if (c == "u") {
				if (substr(s, p + 1, 4) !~ /^[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]$/)
					fail("a bad \\u escape")
				p += 4
			} else if (!index("\"\\/bfnrt", c)) {
				fail("a bad escape")
			}
		}
	}
	fail("the string does not end")
}

function number() {
	if (!match(substr(s, p, 64), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/))
		return 0
	p += RLENGTH
	return 1
}
