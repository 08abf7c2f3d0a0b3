/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the config loader (nvmf_config_parse, the path of nvmf-target
 * --check). The input is the file's text. A config that loads must also survive the
 * trip the control socket's config_save makes: written back (nvmf_config_to_json) it
 * loads again into the same JSON. A refused one must say why and leave nothing to free.
 * Seeds: tests/fuzz/corpus/config/ (the files of configs/ and tests/data/nvmetcli/, and
 * hand-made ones); dictionary: tests/fuzz/config.dict.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/config.h"

/* The JSON text of @cfg as config_save writes it; malloc'ed, or NULL without memory. */
static char *saved_text(const struct nvmf_config *cfg)
{
	json_t *j = nvmf_config_to_json(cfg);
	char *text = j ? json_dumps(j, JSON_SORT_KEYS) : NULL;
	json_decref(j);
	return text;
}

static int is_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = malloc(size + 1);
	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	struct nvmf_config cfg;
	char err[1024] = "";
	if (nvmf_config_parse(json, &cfg, err, sizeof(err))) {
		/* Refused: one message, and a zeroed config (docs: nothing to free). */
		if (!err[0] || !is_zero(&cfg, sizeof(cfg)))
			abort();
		free(json);
		return 0;
	}
	char *first = saved_text(&cfg);
	if (first) {
		struct nvmf_config again;
		char err2[1024] = "";
		if (nvmf_config_parse(first, &again, err2, sizeof(err2))) {
			fprintf(stderr, "fuzz_config: the saved config does not load: %s\n%s\n",
				err2, first);
			abort();
		}
		char *second = saved_text(&again);
		if (second && strcmp(first, second)) {
			fprintf(stderr,
				"fuzz_config: saved, loaded and saved again differs:\n%s\n%s\n",
				first, second);
			abort();
		}
		free(second);
		nvmf_config_free(&again);
	}
	free(first);
	nvmf_config_free(&cfg);
	free(json);
	return 0;
}
