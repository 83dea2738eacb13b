// A world's owner and members (see members.h).
#include "members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

world_member* members_find(world_members* w, uint64_t session_id)
{
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			return w->list + i;
		}
	}
	return NULL;
}

sinew_v1_Role members_role(const world_members* w, uint64_t session_id)
{
	if (w->owner != 0 && w->owner == session_id)
	{
		return sinew_v1_Role_ROLE_OWNER;
	}
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			return w->list[i].role;
		}
	}
	return sinew_v1_Role_ROLE_OBSERVER;
}

bool members_set(world_members* w, uint64_t session_id, sinew_v1_Role role, bool controlling)
{
	world_member* m = members_find(w, session_id);
	if (m == NULL)
	{
		if (w->count == w->capacity)
		{
			int capacity = w->capacity > 0 ? 2 * w->capacity : 4;
			world_member* list = realloc(w->list, (size_t)capacity * sizeof(world_member));
			if (list == NULL)
			{
				return false;
			}
			w->list = list;
			w->capacity = capacity;
		}
		m = w->list + w->count++;
		memset(m, 0, sizeof(*m));
		m->session_id = session_id;
	}
	m->role = role;
	m->controlling = controlling;
	return true;
}

void members_remove(world_members* w, uint64_t session_id)
{
	for (int i = 0; i < w->count; ++i)
	{
		if (w->list[i].session_id == session_id)
		{
			free(w->list[i].input);
			// Keep join order: it is the order lockstep inputs are applied in.
			memmove(w->list + i, w->list + i + 1, (size_t)(w->count - i - 1) * sizeof(world_member));
			w->count -= 1;
			return;
		}
	}
}

void members_free(world_members* w)
{
	for (int i = 0; i < w->count; ++i)
	{
		free(w->list[i].input);
	}
	free(w->list);
	w->list = NULL;
	w->count = 0;
	w->capacity = 0;
}

uint64_t members_demote(world_members* w, const char* address, uint64_t now_ns, uint64_t base_ns)
{
	demoted_client* slot = NULL;
	for (int i = 0; i < MEMBERS_DEMOTED_KEPT && slot == NULL; ++i)
	{
		slot = strcmp(w->demoted[i].address, address) == 0 ? w->demoted + i : NULL;
	}
	if (slot == NULL)
	{
		slot = w->demoted; // the bar that ends first goes
		for (int i = 1; i < MEMBERS_DEMOTED_KEPT; ++i)
		{
			slot = w->demoted[i].until_ns < slot->until_ns ? w->demoted + i : slot;
		}
		memset(slot, 0, sizeof(*slot));
		snprintf(slot->address, sizeof(slot->address), "%s", address);
	}
	const uint64_t hour_ns = 3600ull * 1000000000ull;
	uint64_t wait = base_ns;
	for (int k = 0; k < slot->demotions && wait < hour_ns; ++k)
	{
		wait *= 2;
	}
	slot->demotions += 1;
	slot->until_ns = now_ns + (wait < hour_ns ? wait : hour_ns);
	return slot->until_ns;
}

uint64_t members_barred_until(const world_members* w, const char* address, uint64_t now_ns)
{
	for (int i = 0; i < MEMBERS_DEMOTED_KEPT; ++i)
	{
		if (w->demoted[i].address[0] != '\0' && strcmp(w->demoted[i].address, address) == 0)
		{
			return w->demoted[i].until_ns > now_ns ? w->demoted[i].until_ns : 0;
		}
	}
	return 0;
}
