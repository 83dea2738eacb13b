// libFuzzer target for the URDF importer: any bytes go through snm_parse_urdf; a model that parses must
// satisfy the invariants the build layer relies on, and a failure must carry a message. A model that
// parses is then built into a world and stepped a few times, with and without drives. ASan and UBSan
// (SINEW_FUZZ) catch memory errors, leaks and undefined behaviour; libFuzzer's -timeout catches hangs.
#include "sinew/model.h"
#include "sinew/sinew.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition)
{
	if (!condition)
	{
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	// Smaller limits than the defaults so that the fuzzer reaches them.
	snm_limits limits = snm_default_limits();
	limits.max_bytes = 1 << 20;
	limits.max_links = 64;
	limits.max_joints = 64;
	limits.max_visuals = 64;
	limits.max_materials = 16;
	limits.max_depth = 16;
	snm_model* model = NULL;
	snm_error error;
	sn_error err = snm_parse_urdf((const char*)data, size, "fuzz.urdf", &limits, &model, &error);
	if (err != SN_ERR_OK)
	{
		check(model == NULL && error.code == err && error.text[0] != '\0' &&
			  memchr(error.text, '\0', sizeof(error.text)));
		return 0;
	}
	// A tree: one root, link_order a permutation with parents first, every joint resolved.
	check(model->link_count >= 1 && model->root >= 0 && model->root < model->link_count);
	check(model->link_order[0] == model->root);
	unsigned char* seen = calloc((size_t)model->link_count, 1);
	check(seen != NULL);
	for (int i = 0; i < model->link_count; ++i)
	{
		int link = model->link_order[i];
		check(link >= 0 && link < model->link_count && !seen[link]);
		int pj = model->links[link].parent_joint;
		check((pj < 0) == (link == model->root));
		check(pj < 0 || seen[model->joints[pj].parent]);
		seen[link] = 1;
	}
	free(seen);
	for (int j = 0; j < model->joint_count; ++j)
	{
		const snm_joint* jt = &model->joints[j];
		check(jt->parent >= 0 && jt->child >= 0 && jt->parent != jt->child);
		check(!jt->has_mimic || (jt->mimic >= 0 && jt->mimic != j && model->joints[jt->mimic].mimic < 0));
	}
	// Build it: the checks of the build layer and of the core, then a few steps.
	sn_world* world = NULL;
	sn_world_def wd = sn_default_world_def();
	wd.solver = (size & 2) ? SN_SOLVER_PGS : SN_SOLVER_TGS;
	check(sn_world_create(&wd, &world) == SN_ERR_OK);
	snm_build_def bd = snm_default_build_def();
	bd.massless_link_mass = (size & 1) ? 0.01 : 0.0;
	bd.drive_all.drive.enabled = (size & 4) != 0;
	bd.drive_all.drive.stiffness = 100.0;
	bd.drive_all.drive.damping = 10.0;
	bd.balance_inertia = (size & 8) != 0;
	bd.merge_fixed_links = (size & 16) == 0;
	bd.velocity_limits = (snm_velocity_limits)((size >> 5) % 3);
	snm_build_result built;
	snm_error build_error;
	err = snm_build(world, model, &bd, &built, &build_error);
	if (err == SN_ERR_OK)
	{
		check(built.articulation_link_count >= 1 && built.articulation_link_count <= model->link_count);
		for (int i = 0; i < 3; ++i)
		{
			sn_world_step(world);
		}
		snm_build_result_free(&built);
	}
	else
	{
		check(build_error.code == err && build_error.text[0] != '\0' &&
			  sn_world_get_articulations(world, NULL, 0) == 0);
	}
	sn_world_destroy(world);
	snm_model_destroy(model);
	return 0;
}
