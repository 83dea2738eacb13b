// The contact scenes of ../shared/bench/contact-scenes.md and the cases each is run in (a time step and
// a kind of coordinates): one table for bench_contacts (Sinew) and bench_peers (MuJoCo, Bullet, ODE), so
// that their BENCH lines pair up case for case (bench/peers/contacts_table.py joins them).
#ifndef SINEW_BENCH_CONTACT_CASES_H
#define SINEW_BENCH_CONTACT_CASES_H

#include <stdbool.h>

typedef enum contact_scene
{
	CONTACT_C1,
	CONTACT_C2A,
	CONTACT_C2B,
	CONTACT_C3,
	CONTACT_C4,
	CONTACT_C5,
	CONTACT_C6,
	CONTACT_C7,
	CONTACT_C8,
	CONTACT_GRIPPER,
	CONTACT_SCENE_COUNT
} contact_scene;

// Names as the scene file and the BENCH lines write them.
static const char* const contact_scene_names[CONTACT_SCENE_COUNT] = {
	"C1", "C2a", "C2b", "C3", "C4", "C5", "C6", "C7", "C8", "gripper",
};

typedef struct contact_case
{
	contact_scene scene;
	double dt;    // s
	bool reduced; // articulations (reduced coordinates), else maximal bodies and joints
} contact_case;

enum
{
	CONTACT_MAX_CASES = 2
};

// The cases the scene file asks for: C5, C6 and C7 at 1/240 s and 1 ms; C8 at 1 ms as articulations and
// as maximal bodies; the gripper at 1 ms as an articulation; the others at 1 ms. Returns their count.
static inline int contact_scene_cases(contact_scene scene, contact_case out[CONTACT_MAX_CASES])
{
	const double ms = 1e-3, hz240 = 1.0 / 240.0;
	out[0].scene = out[1].scene = scene;
	out[0].dt = ms;
	out[0].reduced = false;
	switch (scene)
	{
		case CONTACT_C5:
		case CONTACT_C6:
		case CONTACT_C7:
			out[0].dt = hz240;
			out[1].dt = ms;
			out[1].reduced = false;
			return 2;
		case CONTACT_C8:
			out[0].reduced = true;
			out[1].dt = ms;
			out[1].reduced = false;
			return 2;
		case CONTACT_GRIPPER:
			out[0].reduced = true;
			return 1;
		default:
			return 1;
	}
}

#endif
