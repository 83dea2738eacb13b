// MuJoCo (Debian's libmujoco-dev 2.2.2) as a peer: each scene written as an MJCF model and loaded from
// memory (a virtual file), stepped with mj_step.
//
// Settings, all MuJoCo's defaults for a contact model unless named here (XML reference, <option>):
//   integrator Euler, solver Newton, 100 iterations, tolerance 1e-8, pyramidal friction cone, impratio 1,
//   contacts soft with the default solref (0.02 s, damping ratio 1) and solimp (0.9 0.95 0.001), margin 0,
//   no noslip iterations, memory sized by the compiler (<size> left at its defaults, so C7 shows what a
//   user meets: the warnings are reported on the line).
//   timestep and gravity as the scene says.
//   friction: geom friction "mu 0.005 0.0001" with the default condim 3, so only the sliding coefficient
//   acts; MuJoCo mixes two geoms' frictions by the maximum, and every geom of a scene has the same mu.
//   masses and inertias: explicit <inertial> on every body (the scene's solid values; inertiafromgeom
//   off), so MuJoCo's own capsule inertia does not enter.
//   bodies: free bodies with a <freejoint/>; articulations as nested bodies with hinge or slide joints
//   (MuJoCo's bodies are reduced coordinates); adjacent links do not collide (MuJoCo's default parent
//   filter), all other pairs do.
//   drives: a <general> actuator with an affine bias, force kp (target - q) - kd qdot, clamped by
//   forcerange; the mimic finger: a joint equality q_follower = q_leader (default solref).
// Cannot express: restitution (MuJoCo has no restitution coefficient; a bounce from a tuned solref is not
// the scene's e = 0.5), maximal bodies joined by hinges (C8 maximal).
#include "peer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

typedef struct text
{
	char* data;
	size_t length, capacity;
	bool failed;
} text;

static void add(text* t, const char* format, ...) __attribute__((format(printf, 2, 3)));

static void add(text* t, const char* format, ...)
{
	for (;;)
	{
		va_list args;
		va_start(args, format);
		size_t room = t->capacity - t->length;
		int n = t->data != NULL ? vsnprintf(t->data + t->length, room, format, args) : -1;
		va_end(args);
		if (n >= 0 && (size_t)n < room)
		{
			t->length += (size_t)n;
			return;
		}
		size_t capacity = t->capacity == 0 ? 65536 : 2 * t->capacity;
		char* data = realloc(t->data, capacity);
		if (data == NULL)
		{
			t->failed = true;
			return;
		}
		t->data = data;
		t->capacity = capacity;
	}
}

typedef struct mujoco_world
{
	mjModel* m;
	mjData* d;
	const peer_scene* scene;
	int* body_id;       // scene body -> MuJoCo body id
	int* scene_of_body; // MuJoCo body id -> scene body (-1 for the world)
	int* actuator;      // scene body -> actuator id (-1: none)
	bool* free;         // scene body has a free joint
	bool kinematics_stale;
	int njmax_limited; // the njmax MuJoCo could allocate when it is below the scene's need, else 0
} mujoco_world;

static int warnings_printed;

// MuJoCo prints warnings and writes them to MUJOCO_LOG.TXT by default; the benchmark counts them from
// mjData instead and keeps the working directory clean.
static void quiet_warning(const char* message)
{
	(void)message;
	++warnings_printed;
}

static const char* version(void)
{
	return mj_versionString();
}

static void describe(void)
{
	printf("#   mujoco: defaults (Euler, Newton, 100 iterations, tolerance 1e-8, pyramidal cone, solref 0.02 1,\n"
		   "#   solimp 0.9 0.95 0.001, margin 0, <size> by the compiler); geom friction mu with condim 3 (max\n"
		   "#   mixing, one mu per scene); explicit inertias; articulations as nested bodies; drives as\n"
		   "#   <general> actuators kp (target - q) - kd qdot with forcerange; mimic as a joint equality.\n"
		   "#   No restitution coefficient (C3 not run) and no maximal joints (C8 maximal not run).\n");
}

static void inverse_rotate(const double q[4], const double v[3], double out[3])
{
	double c[4] = { q[0], -q[1], -q[2], -q[3] };
	peer_quat_rotate(c, v, out);
}

static void quat_mul(const double a[4], const double b[4], double out[4])
{
	out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
	out[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
	out[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
	out[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void geom_xml(text* t, const peer_body* b)
{
	const char* friction = "";
	char f[64];
	snprintf(f, sizeof(f), "friction=\"%.17g 0.005 0.0001\"", b->friction);
	friction = f;
	switch (b->geom)
	{
		case PEER_BOX:
			add(t, "<geom type=\"box\" size=\"%.17g %.17g %.17g\" %s/>", b->half[0], b->half[1], b->half[2], friction);
			break;
		case PEER_SPHERE:
			add(t, "<geom type=\"sphere\" size=\"%.17g\" %s/>", b->half[0], friction);
			break;
		case PEER_CAPSULE:
			add(t, "<geom type=\"capsule\" size=\"%.17g\" fromto=\"%.17g 0 0 %.17g 0 0\" %s/>", b->half[0], -b->half[1],
				b->half[1], friction);
			break;
	}
}

// Body i and its children, nested; positions and orientations relative to the parent body.
static void body_xml(text* t, const peer_scene* s, int i)
{
	const peer_body* b = &s->bodies[i];
	double p[3] = { b->p[0], b->p[1], b->p[2] }, q[4] = { b->q[0], b->q[1], b->q[2], b->q[3] };
	if (b->parent >= 0)
	{
		const peer_body* parent = &s->bodies[b->parent];
		double d[3] = { b->p[0] - parent->p[0], b->p[1] - parent->p[1], b->p[2] - parent->p[2] };
		double pc[4] = { parent->q[0], -parent->q[1], -parent->q[2], -parent->q[3] };
		inverse_rotate(parent->q, d, p);
		quat_mul(pc, b->q, q);
	}
	add(t, "<body name=\"b%d\" pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">", i, p[0], p[1], p[2], q[0],
		q[1], q[2], q[3]);
	if (b->joint == PEER_JOINT_NONE)
	{
		add(t, "<freejoint/>");
	}
	else
	{
		double d[3] = { b->anchor[0] - b->p[0], b->anchor[1] - b->p[1], b->anchor[2] - b->p[2] }, at[3], axis[3];
		inverse_rotate(b->q, d, at);
		inverse_rotate(b->q, b->axis, axis);
		add(t, "<joint name=\"j%d\" type=\"%s\" pos=\"%.17g %.17g %.17g\" axis=\"%.17g %.17g %.17g\"/>", i,
			b->joint == PEER_JOINT_HINGE ? "hinge" : "slide", at[0], at[1], at[2], axis[0], axis[1], axis[2]);
	}
	add(t, "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>", b->mass, b->inertia[0],
		b->inertia[1], b->inertia[2]);
	geom_xml(t, b);
	for (int c = i + 1; c < s->body_count; ++c)
	{
		if (s->bodies[c].parent == i)
		{
			body_xml(t, s, c);
		}
	}
	add(t, "</body>\n");
}

static char* model_xml(const peer_scene* s, int njmax)
{
	text t = { NULL, 0, 0, false };
	add(&t, "<mujoco model=\"%s\">\n<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n", s->name);
	add(&t, "<option timestep=\"%.17g\" gravity=\"0 0 %.17g\"/>\n", s->dt, -PEER_GRAVITY);
	if (njmax > 0)
	{
		add(&t, "<size nconmax=\"%d\" njmax=\"%d\"/>\n", s->contacts_bound, njmax);
	}
	add(&t, "<worldbody>\n");
	for (int i = 0; i < s->plane_count; ++i)
	{
		const peer_plane* p = &s->planes[i];
		add(&t, "<geom type=\"plane\" size=\"0 0 1\" zaxis=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 0.0001\"/>\n",
			p->n[0], p->n[1], p->n[2], p->friction);
	}
	for (int i = 0; i < s->wall_count; ++i)
	{
		const peer_static_box* w = &s->walls[i];
		add(&t,
			"<geom type=\"box\" pos=\"%.17g %.17g %.17g\" size=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 "
			"0.0001\"/>\n",
			w->p[0], w->p[1], w->p[2], w->half[0], w->half[1], w->half[2], w->friction);
	}
	for (int i = 0; i < s->body_count; ++i)
	{
		if (s->bodies[i].parent < 0)
		{
			body_xml(&t, s, i);
		}
	}
	add(&t, "</worldbody>\n<actuator>\n");
	for (int i = 0; i < s->body_count; ++i)
	{
		const peer_drive* dr = &s->bodies[i].drive;
		if (dr->enabled)
		{
			add(&t,
				"<general name=\"a%d\" joint=\"j%d\" gaintype=\"fixed\" gainprm=\"%.17g\" biastype=\"affine\" "
				"biasprm=\"0 %.17g %.17g\" ctrllimited=\"false\" forcelimited=\"true\" forcerange=\"%.17g "
				"%.17g\"/>\n",
				i, i, dr->stiffness, -dr->stiffness, -dr->damping, -dr->max_force, dr->max_force);
		}
	}
	add(&t, "</actuator>\n<equality>\n");
	for (int i = 0; i < s->body_count; ++i)
	{
		if (s->bodies[i].mimic_of >= 0)
		{
			add(&t, "<joint joint1=\"j%d\" joint2=\"j%d\" polycoef=\"0 1 0 0 0\"/>\n", i, s->bodies[i].mimic_of);
		}
	}
	add(&t, "</equality>\n</mujoco>\n");
	if (t.failed)
	{
		free(t.data);
		return NULL;
	}
	return t.data;
}

static void destroy(void* world)
{
	mujoco_world* w = world;
	if (w == NULL)
	{
		return;
	}
	if (w->d != NULL)
	{
		mj_deleteData(w->d);
	}
	if (w->m != NULL)
	{
		mj_deleteModel(w->m);
	}
	free(w->body_id);
	free(w->scene_of_body);
	free(w->actuator);
	free(w->free);
	free(w);
}

// Compile the scene with this njmax (0: the compiler's sizes); NULL with the compiler's message.
static mjModel* load(const peer_scene* s, int njmax, char* error, int error_size)
{
	char* xml = model_xml(s, njmax);
	mjVFS* vfs = malloc(sizeof(mjVFS));
	mjModel* m = NULL;
	if (xml != NULL && vfs != NULL)
	{
		mj_defaultVFS(vfs);
		int size = (int)strlen(xml) + 1;
		if (mj_makeEmptyFileVFS(vfs, "scene.xml", size) == 0)
		{
			int file = mj_findFileVFS(vfs, "scene.xml");
			memcpy(vfs->filedata[file], xml, (size_t)size);
			m = mj_loadXML("scene.xml", vfs, error, error_size);
		}
		mj_deleteVFS(vfs);
	}
	else
	{
		snprintf(error, (size_t)error_size, "out of memory");
	}
	free(vfs);
	free(xml);
	return m;
}

static void* create(const peer_scene* s, char* why, size_t why_size)
{
	if (s->needs_restitution)
	{
		snprintf(why, why_size, "no_restitution");
		return NULL;
	}
	bool jointed = false;
	for (int i = 0; i < s->body_count; ++i)
	{
		jointed = jointed || s->bodies[i].joint != PEER_JOINT_NONE;
	}
	if (jointed && !s->reduced)
	{
		snprintf(why, why_size, "no_maximal_joints");
		return NULL;
	}
	mju_user_warning = quiet_warning;
	mujoco_world* w = calloc(1, sizeof(mujoco_world));
	if (w == NULL)
	{
		snprintf(why, why_size, "out_of_memory");
		return NULL;
	}
	w->scene = s;
	// Room for the scene's contacts: the compiler's default contact list (100 contacts) is full in C6, C7
	// and C8, and MuJoCo then drops contacts (bodies fall through the ground), so these scenes get
	// nconmax = the scene's bound and njmax = 4 rows per contact (pyramidal cone, condim 3). MuJoCo 2.2.2
	// sizes mjData with int arithmetic and njmax^2 terms (efc_AR): where that does not fit, njmax is
	// lowered until it does, and the line's warnings say so (njmax_limited) along with any overflow
	// during the run (cnstrfull).
	static int fitted[PEER_SCENE_COUNT]; // the njmax that fitted, per scene, for the later runs
	int want = 4 * s->contacts_bound, njmax = fitted[s->id] > 0 ? fitted[s->id] : want;
	char error[1000] = "";
	for (;;)
	{
		w->m = load(s, njmax, error, sizeof(error));
		if (w->m != NULL || s->contacts_bound == 0 || njmax < s->contacts_bound)
		{
			break;
		}
		njmax = (int)(0.9 * njmax);
	}
	fitted[s->id] = njmax;
	w->njmax_limited = njmax < want ? njmax : 0;
	if (w->m == NULL)
	{
		fprintf(stderr, "mujoco: %s: %s\n", s->name, error);
		snprintf(why, why_size, "model_refused");
		destroy(w);
		return NULL;
	}
	w->d = mj_makeData(w->m);
	w->body_id = calloc((size_t)s->body_count, sizeof(int));
	w->actuator = calloc((size_t)s->body_count, sizeof(int));
	w->free = calloc((size_t)s->body_count, sizeof(bool));
	w->scene_of_body = calloc((size_t)w->m->nbody, sizeof(int));
	if (w->d == NULL || w->body_id == NULL || w->actuator == NULL || w->free == NULL || w->scene_of_body == NULL)
	{
		snprintf(why, why_size, "out_of_memory");
		destroy(w);
		return NULL;
	}
	for (int b = 0; b < w->m->nbody; ++b)
	{
		w->scene_of_body[b] = -1;
	}
	for (int i = 0; i < s->body_count; ++i)
	{
		char name[32];
		snprintf(name, sizeof(name), "b%d", i);
		w->body_id[i] = mj_name2id(w->m, mjOBJ_BODY, name);
		w->scene_of_body[w->body_id[i]] = i;
		w->free[i] = s->bodies[i].joint == PEER_JOINT_NONE;
		snprintf(name, sizeof(name), "a%d", i);
		w->actuator[i] = mj_name2id(w->m, mjOBJ_ACTUATOR, name);
		if (w->actuator[i] >= 0)
		{
			w->d->ctrl[w->actuator[i]] = s->bodies[i].drive.target;
		}
	}
	w->kinematics_stale = true;
	return w;
}

static void step(void* world)
{
	mujoco_world* w = world;
	mj_step(w->m, w->d);
	w->kinematics_stale = true;
}

static void state(void* world, int body, peer_state* out)
{
	mujoco_world* w = world;
	const mjModel* m = w->m;
	mjData* d = w->d;
	int id = w->body_id[body];
	if (w->free[body])
	{
		// The free joint's coordinates are the current state (mj_step's kinematics are one step behind).
		int qa = m->jnt_qposadr[m->body_jntadr[id]], va = m->jnt_dofadr[m->body_jntadr[id]];
		memcpy(out->p, d->qpos + qa, 3 * sizeof(double));
		memcpy(out->q, d->qpos + qa + 3, 4 * sizeof(double));
		memcpy(out->v, d->qvel + va, 3 * sizeof(double));
		peer_quat_rotate(out->q, d->qvel + va + 3, out->w); // the free joint's angular velocity is local
		return;
	}
	if (w->kinematics_stale)
	{
		mj_kinematics(m, d);
		mj_comPos(m, d);
		mj_comVel(m, d);
		w->kinematics_stale = false;
	}
	memcpy(out->p, d->xpos + 3 * id, 3 * sizeof(double));
	memcpy(out->q, d->xquat + 4 * id, 4 * sizeof(double));
	double v[6];
	mj_objectVelocity(m, d, mjOBJ_BODY, id, v, 0);
	memcpy(out->w, v, 3 * sizeof(double));
	memcpy(out->v, v + 3, 3 * sizeof(double));
}

static void contacts(void* world, peer_contacts* out)
{
	mujoco_world* w = world;
	out->count = 0;
	out->penetration = 0.0;
	for (int i = 0; i < w->d->ncon; ++i)
	{
		const mjContact* c = &w->d->contact[i];
		if (c->exclude == 0 && c->efc_address >= 0)
		{
			out->count++;
			out->penetration = fmax(out->penetration, -c->dist);
		}
	}
}

static void contact_force(void* world, int body, double f[3])
{
	mujoco_world* w = world;
	f[0] = f[1] = f[2] = 0.0;
	for (int i = 0; i < w->d->ncon; ++i)
	{
		const mjContact* c = &w->d->contact[i];
		if (c->exclude != 0 || c->efc_address < 0)
		{
			continue;
		}
		double local[6];
		mj_contactForce(w->m, w->d, i, local);
		// The frame's rows are the normal (from geom1 to geom2) and the two tangents; the force is geom1's
		// on geom2.
		int b1 = w->scene_of_body[w->m->geom_bodyid[c->geom1]], b2 = w->scene_of_body[w->m->geom_bodyid[c->geom2]];
		double sign = (b2 == body) ? 1.0 : (b1 == body ? -1.0 : 0.0);
		for (int j = 0; j < 3; ++j)
		{
			f[j] += sign * (local[0] * c->frame[j] + local[1] * c->frame[3 + j] + local[2] * c->frame[6 + j]);
		}
	}
}

static void set_target(void* world, int body, double target)
{
	mujoco_world* w = world;
	if (w->actuator[body] >= 0)
	{
		w->d->ctrl[w->actuator[body]] = target;
	}
}

static double drive_force(void* world, int body)
{
	mujoco_world* w = world;
	return w->actuator[body] >= 0 ? w->d->actuator_force[w->actuator[body]] : 0.0;
}

static const char* warnings(void* world)
{
	mujoco_world* w = world;
	static char buffer[128];
	buffer[0] = '\0';
	if (w->njmax_limited > 0)
	{
		snprintf(buffer, sizeof(buffer), "njmax_limited:%d", w->njmax_limited);
	}
	static const struct
	{
		int index;
		const char* name;
	} kinds[] = { { mjWARN_CONTACTFULL, "contactfull" }, { mjWARN_CNSTRFULL, "cnstrfull" },
				  { mjWARN_BADQACC, "badqacc" },         { mjWARN_BADQVEL, "badqvel" },
				  { mjWARN_BADQPOS, "badqpos" },         { mjWARN_INERTIA, "inertia" } };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k)
	{
		int n = w->d->warning[kinds[k].index].number;
		if (n > 0)
		{
			size_t used = strlen(buffer);
			snprintf(buffer + used, sizeof(buffer) - used, "%s%s:%d", used > 0 ? "," : "", kinds[k].name, n);
		}
	}
	return buffer;
}

const peer_engine peer_mujoco = { "mujoco", version,       describe,   create,      step,     state,
								  contacts, contact_force, set_target, drive_force, warnings, destroy };
