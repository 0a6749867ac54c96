/* SPDX-License-Identifier: MIT */
#include "nccl_tests_noise.h"

#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits of @s from @i: how many. */
static size_t digits_at(const char *s, size_t len, size_t i)
{
	size_t k = i;

	while (k < len && is_digit(s[k]))
		k++;
	return k - i;
}

/* @s at @i holds @word. */
static bool word_at(const char *s, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);

	return i + n <= len && !memcmp(s + i, word, n);
}

size_t nt_launcher_prefix(const char *s, size_t len)
{
	size_t i = 0, n;

	if (len && s[0] == '[') {
		/* "[1,0]<stdout>:" (Open MPI), "[0] " (MPICH, Intel MPI) */
		n = digits_at(s, len, 1);
		if (!n)
			return 0;
		i = 1 + n;
		if (i < len && s[i] == ',') {
			n = digits_at(s, len, i + 1);
			i += 1 + n;
			if (!n || !word_at(s, len, i, "]<"))
				return 0;
			i += 2;
			if (!word_at(s, len, i, "stdout>:") && !word_at(s, len, i, "stderr>:"))
				return 0;
			return i + 8;
		}
		return word_at(s, len, i, "] ") ? i + 2 : 0;
	}
	/* " 0: " (srun -l pads the task's number to the widest) */
	while (i < len && s[i] == ' ')
		i++;
	n = digits_at(s, len, i);
	return n && word_at(s, len, i + n, ": ") ? i + n + 2 : 0;
}

/* The digits of @s just before @end: how many. */
static size_t digits_before(const char *s, size_t end)
{
	size_t k = end;

	while (k > 0 && is_digit(s[k - 1]))
		k--;
	return end - k;
}

/*
 * "[DEV] NCCL " from @i, after "PID:TID ": where the host before them
 * ends (its ':'), or (size_t)-1. @i is the '[' of "[DEV]".
 */
static size_t host_end_before(const char *s, size_t len, size_t i)
{
	size_t k = digits_at(s, len, i + 1), n;

	if (i < 2 || s[i - 1] != ' ' || s[i] != '[' || !k || !word_at(s, len, i + 1 + k, "] NCCL "))
		return (size_t)-1;
	/* back over "HOST:PID:TID ", a host of one byte at least */
	k = i - 1; /* the blank */
	for (int field = 0; field < 2; field++) {
		n = digits_before(s, k);
		if (!n || k - n < 2 || s[k - n - 1] != ':')
			return (size_t)-1;
		k -= n + 1; /* the ':' before the number */
	}
	return k;
}

bool nt_log_line(const char *s, size_t len, struct nt_log_hosts *hosts)
{
	size_t host = 0, end;

	while (host < len && s[host] != ':' && s[host] != ' ' && s[host] != '\t')
		host++;
	if (!host || host >= len || s[host] != ':')
		return false;
	/* "HOST:PID:TID [DEV] NCCL ": the '[' after the second number */
	end = host + 1 + digits_at(s, len, host + 1);
	if (end >= len || s[end] != ':')
		return false;
	end += 1 + digits_at(s, len, end + 1);
	if (end + 1 >= len || s[end] != ' ' || host_end_before(s, len, end + 1) != host)
		return false;
	for (unsigned k = 0; k < hosts->n; k++)
		if (strlen(hosts->name[k]) == host && !memcmp(hosts->name[k], s, host))
			return true;
	if (hosts->n < NT_LOG_HOSTS && host < NT_LOG_HOST_MAX) {
		memcpy(hosts->name[hosts->n], s, host);
		hosts->name[hosts->n++][host] = '\0';
	}
	return true;
}

/* The cell a log line was glued to, from @from: a number or N/A; its
 * length. */
static size_t cell_len(const char *s, size_t end, size_t from)
{
	size_t k = from;

	if (word_at(s, end, from, "N/A"))
		return 3;
	while (k < end && (is_digit(s[k]) || s[k] == '.' || s[k] == '-' || s[k] == '+' ||
			   s[k] == 'e' || s[k] == 'E'))
		k++;
	/* "-1e" of "-1eos01": the exponent had no digits, the host did */
	while (k > from && !is_digit(s[k - 1]) && s[k - 1] != '.')
		k--;
	return k - from;
}

size_t nt_glued_log(const char *s, size_t len, const struct nt_log_hosts *hosts)
{
	for (size_t i = 1; i < len; i++) {
		size_t end = s[i] == '[' ? host_end_before(s, len, i) : (size_t)-1, from, c;

		if (end == (size_t)-1)
			continue;
		for (unsigned k = 0; k < hosts->n; k++) {
			size_t n = strlen(hosts->name[k]);

			if (n < end && !memcmp(s + end - n, hosts->name[k], n))
				return end - n;
		}
		/* a host not seen whole yet: after the cell it is glued to */
		for (from = end; from > 0 && s[from - 1] != ' ' && s[from - 1] != '\t'; from--)
			;
		c = cell_len(s, end, from);
		if (c && from + c < end && from > 0)
			return from + c;
	}
	return len;
}
