/**
 * Who flies where from the simulated airport (Amsterdam Schiphol): each operation is
 * one airline's kind of service (KLM Europe, KLM intercontinental, Transavia holiday
 * flights, a foreign carrier's shuttle to its hub, freight), with its share of the
 * day's rotations, routes, fleet, flight-number range, registrations and codeshare
 * partners. The timetable draws rotations from these; nothing else reads them.
 */

/** A codeshare partner: marketing airline, its number range, and how often it joins. */
export interface CodesharePartner {
  airline: string;
  from: number;
  to: number;
  probability: number;
}

/** One kind of service an airline flies. */
export interface Operation {
  airline: string;
  /** Relative share of the day's rotations. */
  weight: number;
  /** Based here: the day starts with a departure and the aircraft comes back. */
  home: boolean;
  routes: readonly string[];
  /** Aircraft sub types (`iataSub`). */
  fleet: readonly string[];
  /** Flight-number range of the operating flights. */
  numbers: readonly [number, number];
  /** Registration patterns: `?` letter, `#` digit. */
  registrations: readonly string[];
  partners?: readonly CodesharePartner[];
  /** Share of charter (`C`) flights; the rest are scheduled (`J`). */
  charter?: number;
  freight?: boolean;
  /** Low-cost carrier: uses the H and M piers. */
  lowCost?: boolean;
}

const cs = (airline: string, from: number, to: number, probability: number): CodesharePartner => ({
  airline,
  from,
  to,
  probability,
});

const HOME = true;
const AWAY = false;

/** A list of codes from one space-separated text. */
function codes(text: string): readonly string[] {
  return text.split(" ").filter((code) => code.length > 0);
}

function op(
  airline: string,
  weight: number,
  home: boolean,
  routes: readonly string[],
  fleet: string,
  numbers: readonly [number, number],
  registrations: string,
  extra: Partial<Operation> = {},
): Operation {
  return {
    airline,
    weight,
    home,
    routes,
    fleet: codes(fleet),
    numbers,
    registrations: codes(registrations),
    ...extra,
  };
}

const KL_EUROPE = codes(
  "LHR LHR LHR LCY MAN BHX BRS EDI GLA ABZ NCL LBA BFS NWI CWL SOU DUB ORK CDG CDG NCE LYS " +
    "MRS TLS BOD NTE BCN MAD AGP ALC PMI VLC SVQ BIO LIS OPO FCO MXP LIN VCE BLQ FLR NAP CTA " +
    "TRN ATH FRA MUC BER HAM STR HAJ BRE NUE LEJ DRS ZRH GVA BSL VIE CPH BLL AAL ARN GOT OSL " +
    "BGO SVG TRD HEL TLL RIX VNO WAW KRK GDN WRO PRG BUD LJU ZAG SPU LUX SOF OTP BEG IST KEF " +
    "TLV",
);
const KL_LONG_HAUL = codes(
  "JFK JFK ATL DTW MSP BOS IAD ORD MIA LAX SFO SEA IAH DFW LAS YYZ YUL YVR YYC MEX CUN PTY " +
    "BOG LIM GRU GIG EZE CUR AUA BON SXM PBM HAV PUJ DXB DOH MCT KWI BAH RUH DMM CAI NBO JNB " +
    "CPT LOS ABV ACC KGL EBB DAR JRO DEL BOM BLR BKK SIN KUL CGK DPS HKG PEK PVG CAN ICN NRT " +
    "KIX TPE MNL SGN",
);
const HOLIDAY = codes(
  "AGP ALC PMI VLC SVQ IBZ LPA TFS ACE FUE LIS OPO FAO FNC FCO NAP CTA PMO BRI PSA CAG OLB " +
    "VCE ATH HER RHO CFU JTR SKG KGS CHQ ZTH JMK NCE MRS BCN MAD SPU DBV MLA VAR BOJ AYT ADB " +
    "DLM BJV RAK AGA NDR TNG HRG NBE DJE KRK BUD PRG LCA PFO TLV INN SZG KEF",
);
const FREIGHT_ROUTES = codes("JFK MIA ORD ATL GRU BOG LIM MEX NBO JNB LOS HKG PVG DXB DOH SIN ICN");

const KL_PARTNERS_EU = [
  cs("AF", 8000, 8999, 0.35),
  cs("DL", 9000, 9699, 0.2),
  cs("KE", 5900, 5999, 0.03),
  cs("MU", 8600, 8699, 0.03),
  cs("CZ", 7700, 7799, 0.03),
  cs("AM", 6400, 6499, 0.02),
  cs("G3", 5200, 5299, 0.02),
  cs("KQ", 1500, 1599, 0.02),
  cs("VS", 6800, 6899, 0.03),
];
const KL_PARTNERS_LONG = [
  cs("DL", 9200, 9799, 0.7),
  cs("AF", 5400, 5999, 0.6),
  cs("G3", 5300, 5399, 0.1),
  cs("AM", 6500, 6599, 0.1),
  cs("CZ", 7800, 7899, 0.1),
  cs("KE", 5800, 5899, 0.1),
  cs("MF", 9100, 9199, 0.1),
  cs("VS", 6900, 6999, 0.1),
];

/** The simulated airport's operations: airline, weight, based here?, routes, fleet, numbers, registrations. */
// biome-ignore format: one operation per line reads as a table
export const OPERATIONS: readonly Operation[] = [
  op("KL", 36, HOME, KL_EUROPE, "73H 73W 73J 32Q E90 E75 295", [1001, 1999], "PHBX? PHBG? PHEZ? PHEX? PHNX? PHAX?", { partners: KL_PARTNERS_EU }),
  op("KL", 9, HOME, KL_LONG_HAUL, "772 77W 789 781 332 333", [401, 999], "PHBQ? PHBV? PHBH? PHBK? PHAO? PHAK?", { partners: KL_PARTNERS_LONG }),
  op("HV", 11, HOME, HOLIDAY, "73H 73W 7M8 32Q", [5001, 6999], "PHHX? PHHS? PHXR? PHYH?", { partners: [cs("KL", 2000, 3499, 0.45), cs("DL", 7000, 7999, 0.25)], charter: 0.1 }),
  op("U2", 6, HOME, codes("LGW LTN STN MAN BRS EDI GLA BFS LPL GVA BSL BER MXP NCE LYS BCN MAD LIS FCO NAP CPH AGP PMI FAO ALC"), "319 320 32N 32Q", [7801, 8999], "GEZ?? OEIZ? HBJX?", { lowCost: true }),
  op("OR", 2, HOME, codes("AYT HRG RAK LPA TFS FUE HER RHO CUR AUA BON CUN PUJ SID BVC"), "7M8 73H 788 789", [101, 699], "PHTF? PHTD?", { charter: 0.8 }),
  op("CD", 1.5, HOME, codes("AYT ADB DLM BJV HER RHO KGS LPA TFS HRG SSH CUR BON AUA"), "73H 7M8 332", [101, 999], "PHCD?", { charter: 0.7 }),
  op("XC", 1, AWAY, codes("AYT ADB DLM BJV"), "73H 7M8", [2001, 2999], "TCT??", { charter: 0.6 }),
  op("DL", 2.2, AWAY, codes("JFK ATL DTW MSP BOS SEA SLC LAX"), "332 333 339 763 764 359", [10, 299], "N8##NW N3##DN N5##NW", { partners: [cs("KL", 6000, 6999, 0.9), cs("AF", 3600, 3699, 0.4), cs("VS", 3000, 3999, 0.3)] }),
  op("AF", 3, AWAY, codes("CDG"), "320 319 318 321 223", [1000, 1999], "FHZU? FGKX? FGRH? FHBN?", { partners: [cs("KL", 2000, 2399, 0.8), cs("DL", 8500, 8999, 0.3)] }),
  op("BA", 3.5, AWAY, codes("LHR LHR LHR LCY LGW"), "319 320 321 32N E90", [400, 499], "GEUU? GEUP? GLCY?", { partners: [cs("AA", 6100, 6999, 0.3), cs("IB", 7000, 7999, 0.2), cs("AY", 5900, 5999, 0.1)] }),
  op("LH", 2.5, AWAY, codes("FRA MUC"), "320 319 32N CR9 E95", [900, 2399], "DAIN? DAIZ? DACN?", { partners: [cs("UA", 8800, 8999, 0.3), cs("LX", 3000, 3099, 0.1), cs("OS", 7300, 7399, 0.1)] }),
  op("LX", 1.5, AWAY, codes("ZRH GVA"), "221 223 320", [700, 799], "HBJB? HBJC?", { partners: [cs("LH", 5700, 5799, 0.3)] }),
  op("OS", 1, AWAY, codes("VIE"), "E95 320 321", [300, 399], "OELW? OELB?", { partners: [cs("LH", 6300, 6399, 0.2)] }),
  op("SK", 2, AWAY, codes("CPH OSL ARN BGO GOT"), "32N CR9 319 AT7", [500, 599], "SEDO? LNRG? OYKA?", { partners: [cs("LH", 6000, 6099, 0.1)] }),
  op("AY", 1, AWAY, codes("HEL"), "319 320 321", [800, 899], "OHLX? OHLZ?", { partners: [cs("BA", 6200, 6299, 0.2)] }),
  op("IB", 1, AWAY, codes("MAD"), "320 321 32N", [3200, 3399], "ECM??", { partners: [cs("BA", 7400, 7499, 0.3)] }),
  op("UX", 0.8, AWAY, codes("MAD"), "738 7M8", [1000, 1199], "ECN??", { partners: [cs("KL", 3500, 3599, 0.5)] }),
  op("VY", 2, AWAY, codes("BCN AGP ALC BIO SVQ"), "320 321 32N", [8000, 8999], "ECM?? ECN??", { lowCost: true }),
  op("TP", 1.5, AWAY, codes("LIS OPO"), "32N 320 295", [600, 699], "CSTV? CSTN?"),
  op("AZ", 1, AWAY, codes("FCO LIN"), "320 32N", [100, 199], "EIEI? EIDS?", { partners: [cs("KL", 3600, 3699, 0.3)] }),
  op("A3", 0.8, AWAY, codes("ATH"), "320 32N", [600, 699], "SXDG? SXDN?"),
  op("LO", 1, AWAY, codes("WAW"), "E75 E95 73H", [200, 299], "SPLI? SPLN?"),
  op("RO", 0.3, AWAY, codes("OTP"), "73H AT7", [300, 399], "YRBG?", { partners: [cs("KL", 3700, 3799, 0.4)] }),
  op("FB", 0.3, AWAY, codes("SOF"), "320", [400, 499], "LZFB?"),
  op("JU", 0.5, AWAY, codes("BEG"), "320 319 AT7", [300, 399], "YUAP?", { partners: [cs("KL", 3800, 3899, 0.3)] }),
  op("TK", 2.5, AWAY, codes("IST"), "73H 321 32Q 333 359", [1900, 1999], "TCJ?? TCL??"),
  op("PC", 1, AWAY, codes("SAW"), "32N 32Q", [1200, 1299], "TCN??", { lowCost: true }),
  op("XQ", 1, AWAY, codes("AYT ADB"), "73H 7M8", [100, 999], "TCSN?", { charter: 0.3 }),
  op("EI", 1.5, AWAY, codes("DUB ORK"), "320 32N", [600, 699], "EIDV? EIDE?"),
  op("FR", 0.8, AWAY, codes("DUB"), "73H 7M8", [3000, 3999], "EIDL? EIEB?", { lowCost: true }),
  op("W6", 0.5, AWAY, codes("BUD OTP SOF SKP TIA"), "32N 32Q 321", [2000, 2999], "HALX? HALY?", { lowCost: true }),
  op("BT", 0.8, AWAY, codes("RIX VNO TLL"), "223", [600, 699], "YLAA? YLCS?"),
  op("LG", 0.8, AWAY, codes("LUX"), "DH4 73H", [8000, 8999], "LXLG?", { partners: [cs("KL", 3900, 3999, 0.3)] }),
  op("EK", 1, AWAY, codes("DXB"), "388 77W", [140, 159], "A6E??"),
  op("QR", 1, AWAY, codes("DOH"), "359 77W 351", [270, 289], "A7A??"),
  op("EY", 0.7, AWAY, codes("AUH"), "789 781", [50, 99], "A6BL?", { partners: [cs("KL", 4000, 4099, 0.3)] }),
  op("RJ", 0.4, AWAY, codes("AMM"), "320 788", [100, 199], "JYAY?"),
  op("LY", 0.7, AWAY, codes("TLV"), "73H 789", [330, 349], "4XEK?"),
  op("MS", 0.5, AWAY, codes("CAI"), "32N 73H 789", [700, 799], "SUGD?"),
  op("AT", 1, AWAY, codes("CMN TNG NDR RAK"), "73H 7M8", [800, 999], "CNRG? CNMA?"),
  op("3O", 0.6, AWAY, codes("NDR TNG RAK AGA FEZ"), "320", [100, 199], "CNNM?", { lowCost: true }),
  op("ET", 0.5, AWAY, codes("ADD"), "789 359", [700, 799], "ETA??"),
  op("KQ", 0.5, AWAY, codes("NBO"), "788", [100, 199], "5YKZ?", { partners: [cs("KL", 4100, 4199, 0.8)] }),
  op("CI", 0.4, AWAY, codes("TPE"), "359 77W", [50, 99], "B18###"),
  op("CZ", 0.7, AWAY, codes("CAN"), "359 77W 789", [300, 399], "B32##", { partners: [cs("KL", 4200, 4299, 0.5)] }),
  op("MU", 0.4, AWAY, codes("PVG"), "77W 359", [700, 799], "B20##", { partners: [cs("KL", 4300, 4399, 0.5)] }),
  op("CA", 0.4, AWAY, codes("PEK"), "332 789", [900, 999], "B65##"),
  op("MF", 0.5, AWAY, codes("XMN"), "789", [1, 99], "B12##", { partners: [cs("KL", 4400, 4499, 0.5)] }),
  op("HU", 0.3, AWAY, codes("PEK CTU"), "789", [400, 499], "B20##"),
  op("KE", 0.5, AWAY, codes("ICN"), "77W 359", [900, 999], "HL8###", { partners: [cs("KL", 4500, 4599, 0.5)] }),
  op("SQ", 0.6, AWAY, codes("SIN"), "359 77W", [300, 399], "9VS??"),
  op("MH", 0.4, AWAY, codes("KUL"), "359", [1, 99], "9MMA?"),
  op("GA", 0.2, AWAY, codes("CGK"), "77W", [1, 99], "PKGI?", { partners: [cs("KL", 4600, 4699, 0.3)] }),
  op("CX", 0.4, AWAY, codes("HKG"), "359 77W", [200, 299], "BLR??"),
  op("UA", 1, AWAY, codes("EWR IAD ORD IAH SFO"), "772 763 764 789", [20, 999], "N7##UA N6##UA", { partners: [cs("LH", 7600, 7999, 0.3), cs("AC", 3500, 3599, 0.2)] }),
  op("AA", 0.8, AWAY, codes("PHL CLT DFW JFK"), "772 788 789", [100, 799], "N8##AN N8##AA", { partners: [cs("BA", 1500, 1599, 0.4), cs("IB", 4000, 4999, 0.2)] }),
  op("AC", 0.8, AWAY, codes("YYZ YUL YVR"), "789 333 788", [800, 899], "CFG?? CGH??", { partners: [cs("LH", 6800, 6899, 0.3)] }),
  op("WS", 0.3, AWAY, codes("YYC"), "789", [1, 99], "CGU??", { partners: [cs("KL", 4700, 4799, 0.3)] }),
  op("TS", 0.3, AWAY, codes("YUL YYZ"), "32Q 332", [100, 199], "CGT??", { charter: 0.5 }),
  op("AM", 0.3, AWAY, codes("MEX"), "789 788", [1, 99], "XAA??", { partners: [cs("KL", 4800, 4899, 0.6)] }),
  op("CM", 0.2, AWAY, codes("PTY"), "7M9", [100, 199], "HP9###"),
  op("AV", 0.2, AWAY, codes("BOG"), "788", [1, 99], "N7##AV"),
  op("LA", 0.2, AWAY, codes("GRU"), "789", [1, 99], "PTX??"),
  op("PY", 0.3, AWAY, codes("PBM"), "343", [900, 999], "PZTC?", { partners: [cs("KL", 4900, 4999, 0.4)] }),
  op("MP", 1.2, HOME, FREIGHT_ROUTES, "74Y 77F", [8000, 8999], "PHCK? PHMP?", { charter: 0.15, freight: true }),
  op("CV", 0.5, AWAY, codes("ORD HKG DXB JNB"), "74N 74Y", [7000, 7999], "LXV??", { charter: 0.15, freight: true }),
  op("5Y", 0.3, AWAY, codes("ORD MIA HKG PVG"), "74Y", [8000, 8999], "N4##MC", { charter: 0.5, freight: true }),
  op("K4", 0.3, AWAY, codes("ORD JFK MIA"), "74Y 77F", [300, 999], "N7##CK", { charter: 0.5, freight: true }),
  op("CK", 0.3, AWAY, codes("PVG"), "77F", [200, 299], "B22##", { freight: true }),
  op("QR", 0.4, AWAY, codes("DOH"), "77F", [8000, 8999], "A7B??", { freight: true }),
  op("EK", 0.4, AWAY, codes("DXB"), "77F", [9000, 9999], "A6EF?", { freight: true }),
  op("ET", 0.3, AWAY, codes("ADD"), "77F", [3000, 3999], "ETA??", { freight: true }),
];

/**
 * Local departure hour weights (0–23) of home-based short-haul flights: KLM's banks
 * make the morning and evening peaks; the night is nearly closed.
 */
export const HOME_SHORT_DEPARTURE_HOURS = [
  0.2, 0, 0, 0, 0, 0.5, 9, 11, 6, 5, 4, 2, 2, 3, 3, 2, 4, 7, 8, 5, 5, 2, 1, 0.3,
];
/** Local departure hour weights of home-based long-haul flights (late morning and evening). */
export const HOME_LONG_DEPARTURE_HOURS = [
  0.1, 0, 0, 0, 0, 0, 0.2, 0.5, 1, 2, 5, 5, 4, 3, 2, 1, 1, 3, 4, 5, 5, 4, 2, 0.5,
];
/** Local arrival hour weights of foreign short-haul carriers. */
export const FOREIGN_SHORT_ARRIVAL_HOURS = [
  0.3, 0, 0, 0, 0, 0.2, 2, 6, 8, 7, 5, 3, 3, 3, 3, 4, 6, 7, 7, 5, 4, 3, 2, 1,
];
/** Local arrival hour weights of foreign long-haul carriers (overnight flights land early). */
export const FOREIGN_LONG_ARRIVAL_HOURS = [
  0.1, 0, 0, 0, 0.5, 4, 6, 6, 4, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 1, 1, 0.5, 0.2, 0.1,
];

/** A pier with its gate numbers, and the terminal (departure hall) it belongs to. */
export interface Pier {
  pier: string;
  from: number;
  to: number;
  terminal: number;
}

const pier = (name: string, from: number, to: number, terminal: number): Pier => ({
  pier: name,
  from,
  to,
  terminal,
});

/**
 * Pier groups by kind of flight; each group lies in one terminal, so a flight's
 * terminal is known from the start and gate changes stay inside it. D has a
 * Schengen part (D59–D87, terminal 1) and a non-Schengen part (D1–D57, terminal 2).
 */
export const PIER_GROUPS = {
  schengen: [pier("B", 13, 36, 1), pier("C", 4, 21, 1), pier("D", 59, 87, 1)],
  schengenLowCost: [pier("H", 1, 7, 3)],
  nonSchengen: [pier("D", 1, 57, 2)],
  nonSchengenLowCost: [pier("M", 1, 7, 3)],
  intercontinental: [pier("E", 2, 24, 3), pier("F", 2, 9, 3), pier("G", 2, 9, 3)],
} as const satisfies Record<string, readonly Pier[]>;

/** Baggage belts per terminal (arrival hall). */
export const BELTS_BY_TERMINAL: Readonly<Record<number, readonly [number, number]>> = {
  1: [1, 7],
  2: [8, 13],
  3: [14, 26],
};

/** Check-in rows per terminal (departure hall). */
export const CHECKIN_ROWS_BY_TERMINAL: Readonly<Record<number, readonly [number, number]>> = {
  1: [1, 7],
  2: [8, 18],
  3: [19, 28],
};
