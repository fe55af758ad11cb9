/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Value domains of the TPC-H-derived schema (see spec.h). */
#include "pgload/dss/spec.h"

#define LIST(name, ...)                                                          \
	static const char *const name##_v[] = { __VA_ARGS__ };                   \
	const struct dss_list name = { name##_v, sizeof(name##_v) / sizeof(name##_v[0]) }

const struct dss_nation dss_nations[25] = {
	{ "ALGERIA", 0 },    { "ARGENTINA", 1 },    { "BRAZIL", 1 },
	{ "CANADA", 1 },     { "EGYPT", 4 },        { "ETHIOPIA", 0 },
	{ "FRANCE", 3 },     { "GERMANY", 3 },      { "INDIA", 2 },
	{ "INDONESIA", 2 },  { "IRAN", 4 },         { "IRAQ", 4 },
	{ "JAPAN", 2 },      { "JORDAN", 4 },       { "KENYA", 0 },
	{ "MOROCCO", 0 },    { "MOZAMBIQUE", 0 },   { "PERU", 1 },
	{ "CHINA", 2 },      { "ROMANIA", 3 },      { "SAUDI ARABIA", 4 },
	{ "VIETNAM", 2 },    { "RUSSIA", 3 },       { "UNITED KINGDOM", 3 },
	{ "UNITED STATES", 1 },
};

const char *const dss_regions[5] = { "AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST" };

LIST(dss_colors,
     "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
     "blanched", "blue", "blush", "brown", "burlywood", "burnished", "chartreuse",
     "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream", "cyan",
     "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest",
     "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
     "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
     "light", "lime", "linen", "magenta", "maroon", "medium", "metallic",
     "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange",
     "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff",
     "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy",
     "seashell", "sienna", "sky", "slate", "smoke", "snow", "spring", "steel",
     "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow");

LIST(dss_type_s1, "STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO");
LIST(dss_type_s2, "ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED");
LIST(dss_type_s3, "TIN", "NICKEL", "BRASS", "STEEL", "COPPER");
LIST(dss_cont_s1, "SM", "LG", "MED", "JUMBO", "WRAP");
LIST(dss_cont_s2, "CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM");
LIST(dss_segments, "AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD");
LIST(dss_priorities, "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW");
LIST(dss_instructions, "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN");
LIST(dss_modes, "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB");

/* Days from 1970-01-01 of a civil date (the era-based algorithm). */
static int32_t days_from_civil(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int32_t)doe - 719468;
}

#define EPOCH_1992 8035 /* days_from_civil(1992, 1, 1) */

int32_t dss_day(int y, unsigned m, unsigned d)
{
	return days_from_civil(y, m, d) - EPOCH_1992;
}

void dss_civil(int32_t day, int *ret_y, unsigned *ret_m, unsigned *ret_d)
{
	int32_t z = day + EPOCH_1992 + 719468;
	int32_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	*ret_y = (int)yoe + era * 400 + (m <= 2);
	*ret_m = m;
	*ret_d = d;
}

char *dss_put_date(char *buf, int32_t day)
{
	int y;
	unsigned m, d;

	dss_civil(day, &y, &m, &d);
	buf[0] = (char)('0' + y / 1000);
	buf[1] = (char)('0' + y / 100 % 10);
	buf[2] = (char)('0' + y / 10 % 10);
	buf[3] = (char)('0' + y % 10);
	buf[4] = '-';
	buf[5] = (char)('0' + m / 10);
	buf[6] = (char)('0' + m % 10);
	buf[7] = '-';
	buf[8] = (char)('0' + d / 10);
	buf[9] = (char)('0' + d % 10);
	return buf + 10;
}
