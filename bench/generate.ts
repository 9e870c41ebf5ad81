/**
 * Seeded generator of a large catalog source folder for the benchmarks, with the file shapes of the
 * play catalogs (`master-weapons.json`, `master-armor.json`, `master-materials.json`,
 * `master-consumables.json`, `master-weaponSkills.json`) and names that read like real ones
 * ("Bloodfeud Blade T4", "Wraithfang Helm T2", "Refined Mithril Ingot", "Vengeful Slash").
 * `catalog.config.json` is copied from `catalog-src/` when present.
 *
 * Usage: `npx tsx bench/generate.ts [out=.tmp/bench/gen-100k] [records=100000] [seed=20260906]`.
 * Same seed and size → byte-identical files.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRng, type Rng } from '../api/_lib/util/prng.js';

const REPO = resolve(import.meta.dirname, '..');
/** Default output folder of the generated catalog. */
const GEN_DIR = join(REPO, '.tmp/bench/gen-100k');
/** Default seed. */
export const GEN_SEED = 20260906;

const PREFIXES = [
  'Bloodfeud',
  'Wraith',
  'Wraithfang',
  'Oathbreaker',
  'Kinrend',
  'Dusksinger',
  'Emberclad',
  'Gorehowl',
  'Skull',
  'Vein',
  'Iron',
  'Dread',
  'Bone',
  'Blood',
  'Ember',
  'Night',
  'Dusk',
  'Doom',
  'Grudge',
  'Oath',
  'Wrath',
  'Titan',
  'Void',
  'Storm',
  'Frost',
  'Sun',
  'Ash',
  'Glacial',
  'Winter',
  'Dawn',
  'Thorn',
  'Shadow',
  'Star',
  'Moon',
  'Hollow',
  'Grim',
  'Rune',
  'Crimson',
  'Obsidian',
  'Mithril',
  'Steel',
  'Copper',
  'Silver',
  'Gilded',
  'Cinder',
  'Gloom',
  'Soul',
  'Spirit',
  'Storm',
  'Thunder',
  'Viper',
  'Raven',
  'Wolf',
  'Bear',
  'Drake',
  'Wyrm',
  'Hex',
  'Plague',
  'Blight',
  'Sorrow',
  'Feral',
  'Savage',
  'Ancient',
  'Elder',
  'Divine',
  'Holy',
  'Infernal',
  'Abyssal',
  'Éclat',
  'Nöktar',
  'Þorn',
  'Sable',
  'Azure',
  'Verdant',
  'Scarlet',
  'Ivory',
  'Onyx',
  'Jade',
  'Amber',
  'Coral',
  'Cobalt',
  'Tempest',
];
const WEAPON_NOUNS = [
  'Blade',
  'Fang',
  'Claw',
  'Edge',
  'Reaver',
  'Cleaver',
  'Shiv',
  'Spire',
  'Brand',
  'Hew',
  'Maul',
  'Hammer',
  'Splitter',
  'Sunder',
  'Pike',
  'Lance',
  'Javelin',
  'Spear',
  'Trident',
  'Bow',
  'Longbow',
  'Repeater',
  'Xbow',
  'Bolt',
  'Blaster',
  'Gun',
  'Cannon',
  'Rifle',
  'Staff',
  'Wand',
  'Tome',
  'Scythe',
  'Dagger',
  'Axe',
  'Greataxe',
  'Greatsword',
  'Sword',
  'Mace',
  'Shield',
  'Sickle',
];
const WEAPON_CATEGORIES = [
  'swords',
  'axes1h',
  'daggers',
  'greatswords',
  'greataxes',
  'hammers1h',
  'hammers2h',
  'spears',
  'bows',
  'crossbows',
  'guns',
  'fireStaves',
  'frostStaves',
  'holyStaves',
  'tools',
];
const ARMOR_SLOTS = ['Helm', 'Shoulder', 'Chest', 'Hands', 'Feet', 'Ring', 'Necklace', 'Relic', 'Offhand', 'Cloak', 'Belt', 'Greaves'];
const ARMOR_MATERIALS = ['cloth', 'leather', 'metal', 'gem'];
const TIER_LABELS = ['Common', 'Uncommon', 'Rare', 'Epic', 'Heroic', 'Legendary', 'Mythic', 'Divine'];
const MATERIAL_QUALITY = [
  'Scrap',
  'Rough',
  'Refined',
  'Flawless',
  'Pristine',
  'Ancient',
  'Radiant',
  'Faint',
  'Minor',
  'Lesser',
  'Greater',
  'Superior',
  'Perfect',
];
const MATERIAL_BASES = [
  'Copper',
  'Iron',
  'Steel',
  'Mithril',
  'Adamantine',
  'Orichalcum',
  'Starmetal',
  'Pine',
  'Oak',
  'Maple',
  'Ironwood',
  'Ebony',
  'Wyrmwood',
  'Linen',
  'Wool',
  'Silk',
  'Moonweave',
  'Voidweave',
  'Rawhide',
  'Wyrm',
  'Titan',
  'Fire',
  'Frost',
  'Holy',
  'Storm',
  'Nature',
  'Arcane',
];
const MATERIAL_FORMS: readonly (readonly [string, string])[] = [
  ['Ore', 'ore'],
  ['Ingot', 'ingot'],
  ['Log', 'wood'],
  ['Plank', 'wood'],
  ['Thread', 'cloth'],
  ['Cloth', 'cloth'],
  ['Leather', 'leather'],
  ['Hide', 'leather'],
  ['Essence', 'essence'],
  ['Dust', 'essence'],
  ['Gem', 'gem'],
  ['Shard', 'gem'],
];
const FOOD_ADJ = [
  'Roasted',
  'Grilled',
  'Smoked',
  'Spiced',
  'Braised',
  'Stuffed',
  'Hearty',
  "Hunter's",
  "Titan's",
  'Elven',
  'Orcish',
  'Wild',
  'Pepper',
  'Herbal',
  'Honeyed',
  'Flame-Seared',
];
const FOOD_NOUNS = [
  'Skewer',
  'Rabbit',
  'Sausage',
  'Haunch',
  'Steak',
  'Ribs',
  'Cutlet',
  'Roast',
  'Stew',
  'Salad',
  'Soup',
  'Platter',
  'Kebab',
  'Pie',
  'Bread',
  'Feast',
  'Tea',
  'Wrap',
];
const POTION_ADJ = ['Minor', 'Lesser', 'Greater', 'Superior', 'Major', 'Grand', 'Mystic', 'Volatile'];
const POTION_NOUNS = [
  'Health Potion',
  'Mana Potion',
  'Stamina Tonic',
  'Elixir of Fury',
  'Draught of Warding',
  'Phial of Haste',
  'Flask of Embers',
];
const ENGINEER = ['Bomb', 'Toolkit', 'Flare', 'Trap', 'Grenade', 'Turret', 'Caltrops', 'Smoke Charge'];
const SKILL_ADJ = [
  'Vengeful',
  'Lunging',
  'Fearful',
  'Crimson',
  'Heavy',
  'Rapid',
  'Explosive',
  'Sweeping',
  'Blood',
  'Shadow',
  'Frost',
  'Ember',
  'Storm',
  'Holy',
  'Savage',
  'Piercing',
  'Whirling',
  'Shattering',
  'Binding',
  'Searing',
];
const SKILL_NOUNS = [
  'Slash',
  'Strike',
  'Swipe',
  'Bolt',
  'Shot',
  'Barrage',
  'Burst',
  'Rush',
  'Frenzy',
  'Harvest',
  'Nova',
  'Ward',
  'Cleave',
  'Thrust',
  'Volley',
  'Smite',
  'Roar',
  'Dash',
  'Trap',
  'Storm',
];
const WEAPON_TYPES = [
  'SWORD',
  'AXE',
  'BOW',
  'CROSSBOW',
  'GUN',
  'DAGGER',
  'STAFF',
  'HAMMER',
  'SHIELD',
  'GREATSWORD',
  'GREATAXE',
  'SPEAR',
  'TOME',
  'MACE',
  'WAND',
  'SCYTHE',
];

/** Shares of the record total per file (sum 1). */
const SHARES = { weapons: 0.3, armor: 0.5, materials: 0.04, consumables: 0.06, skills: 0.1 } as const;

const hex = (rng: Rng, n: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789ABCDEF'[rng.int(16)];
  return s;
};

/** Id of the timestamp family (`ITEM-20260422050330-0003B2-6FF1F6BD`, spec 2.6). */
function timestampId(prefix: string, counter: number, rng: Rng): string {
  return `${prefix}-20260906083000-${counter.toString(16).toUpperCase().padStart(6, '0')}-${hex(rng, 8)}`;
}

const tierName = (base: string, tier: number): string => (tier === 1 ? base : `${base} T${tier}`);
const lower = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '_');

/** Options of {@link generateCatalog}. */
export interface GenerateOptions {
  /** Output folder (replaced). Default {@link GEN_DIR}. */
  readonly out?: string;
  /** Number of records over the five files. Default 100,000. */
  readonly records?: number;
  /** PRNG seed. Default {@link GEN_SEED}. */
  readonly seed?: number;
}

/**
 * Write a generated catalog source folder. Returns the folder and the record count per type.
 * Deterministic for a given seed and size.
 */
export function generateCatalog(options: GenerateOptions = {}): { out: string; counts: Record<keyof typeof SHARES, number> } {
  const out = options.out ?? GEN_DIR;
  const total = options.records ?? 100_000;
  const rng = createRng(options.seed ?? GEN_SEED);
  let counter = 0x100;
  const generated = '2026-09-06T08:30:00.000Z';
  const count = {
    weapons: Math.round(total * SHARES.weapons),
    armor: Math.round(total * SHARES.armor),
    materials: Math.round(total * SHARES.materials),
    consumables: Math.round(total * SHARES.consumables),
    skills: 0,
  };
  count.skills = total - count.weapons - count.armor - count.materials - count.consumables;

  const weapons: object[] = [];
  while (weapons.length < count.weapons) {
    const prefix = rng.pick(PREFIXES);
    const noun = rng.pick(WEAPON_NOUNS);
    const style = rng.int(4);
    const base =
      style === 0 ? `${prefix}${noun.toLowerCase()}` : style === 1 ? `${rng.pick(MATERIAL_BASES)} ${prefix} ${noun}` : `${prefix} ${noun}`;
    const baseUuid = timestampId('ITEM', counter++, rng);
    const category = rng.pick(WEAPON_CATEGORIES);
    for (let tier = 1; tier <= 8 && weapons.length < count.weapons; tier++) {
      weapons.push({
        uuid: tier === 1 ? baseUuid : timestampId('ITEM', counter++, rng),
        baseUuid,
        name: tierName(base, tier),
        baseName: base,
        category,
        type: 'weapon',
        subCategory: rng.int(2) === 0 ? '1h' : '2h',
        tier,
        tierLabel: TIER_LABELS[tier - 1],
        description: `Forged by the ${prefix} clans`,
        stats: {
          damage: 40 + tier * 10 + rng.int(10),
          speed: 80 + rng.int(40),
          crit: rng.int(10),
          block: rng.int(10),
          defense: rng.int(30),
        },
        source: 'craft',
        lore: `Forged by the ${prefix} clans`,
      });
    }
  }

  const armor: object[] = [];
  while (armor.length < count.armor) {
    const set = rng.pick(PREFIXES);
    for (const slot of ARMOR_SLOTS) {
      for (let tier = 1; tier <= 8; tier++) {
        for (const material of ARMOR_MATERIALS) {
          if (armor.length >= count.armor) break;
          const base = `${set} ${slot}`;
          armor.push({
            uuid: timestampId('ITEM', counter++, rng),
            name: tierName(base, tier),
            baseName: base,
            category: 'armor',
            type: 'armor',
            material,
            slotType: slot,
            setName: set,
            tier,
            tierLabel: TIER_LABELS[tier - 1],
            description: `Worn by the ${set} guard`,
            stats: { hp: 40 + tier * 10 + rng.int(10), mana: rng.int(100), crit: rng.int(6), block: rng.int(6), defense: 5 + tier * 5 },
            source: 'craft',
          });
        }
      }
    }
  }

  const materials: object[] = [];
  while (materials.length < count.materials) {
    const [form, category] = rng.pick(MATERIAL_FORMS);
    const name = `${rng.pick(MATERIAL_QUALITY)} ${rng.pick(MATERIAL_BASES)} ${form}`;
    materials.push({
      uuid: timestampId('MATL', counter++, rng),
      id: `${lower(name)}-${materials.length}`,
      name,
      type: 'material',
      category,
      tier: rng.int(9),
      gatheredBy: 'Miner',
    });
  }

  const consumables: object[] = [];
  while (consumables.length < count.consumables) {
    const kind = rng.int(10);
    const tier = 1 + rng.int(8);
    if (kind < 6) {
      const name = `${rng.pick(FOOD_ADJ)} ${rng.pick(FOOD_NOUNS)}`;
      const uuid = timestampId('FOOD', counter++, rng);
      consumables.push({
        uuid,
        baseUuid: uuid,
        name,
        baseName: name,
        category: 'redFoods',
        type: 'food',
        requiredLevel: tier * 5,
        tier,
        description: 'A hearty meal',
      });
    } else if (kind < 9) {
      const name = `${rng.pick(POTION_ADJ)} ${rng.pick(POTION_NOUNS)}`;
      const uuid = timestampId('POTN', counter++, rng);
      consumables.push({
        uuid,
        baseUuid: uuid,
        name,
        baseName: name,
        category: 'mysticPotions',
        type: 'potion',
        requiredLevel: tier * 5,
        tier,
        description: 'Brewed at the alchemy bench',
      });
    } else {
      const name = `${rng.pick(PREFIXES)} ${rng.pick(ENGINEER)}`;
      const uuid = timestampId('CONS', counter++, rng);
      consumables.push({
        uuid,
        baseUuid: uuid,
        name,
        baseName: name,
        category: 'engineerConsumables',
        type: 'consumable',
        requiredLevel: tier * 5,
        tier,
        description: 'Assembled by engineers',
      });
    }
  }

  const perType = Math.ceil(count.skills / WEAPON_TYPES.length);
  let skillsLeft = count.skills;
  const weaponTypes = WEAPON_TYPES.map((wt) => {
    const skills: object[] = [];
    for (let i = 0; i < perType && skillsLeft > 0; i++, skillsLeft--) {
      const name = `${rng.pick(SKILL_ADJ)} ${rng.pick(SKILL_NOUNS)}`;
      skills.push({
        uuid: timestampId('SKIL', counter++, rng),
        id: `${wt.toLowerCase()}_${lower(name)}_${i}`,
        name,
        description: `${name}: deals damage.`,
        tier: 1 + (i % 8),
        damage: 20 + rng.int(80),
        cooldown: rng.int(20),
      });
    }
    const slotSize = Math.ceil(skills.length / 4);
    const slots = ['primary', 'secondary', 'utility', 'ultimate'].map((type, k) => ({
      type,
      label: type.toUpperCase(),
      unlockTier: 1 + k * 2,
      skills: skills.slice(k * slotSize, (k + 1) * slotSize),
    }));
    return {
      id: wt,
      name: wt[0] + wt.slice(1).toLowerCase(),
      classes: [],
      totalSkills: skills.length,
      slots,
      uuid: timestampId('ITEM', counter++, rng),
    };
  });

  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const write = (file: string, body: object): void => writeFileSync(join(out, file), JSON.stringify(body, null, 2) + '\n');
  write('master-weapons.json', { version: '3.0.0', generated, total: weapons.length, totalWeapons: weapons.length, items: weapons });
  write('master-armor.json', { version: '3.0.0', generated, total: armor.length, totalArmor: armor.length, items: armor });
  write('master-materials.json', { version: '3.0.0', generated, total: materials.length, totalMaterials: materials.length, materials });
  write('master-consumables.json', {
    version: '3.0.0',
    generated,
    total: consumables.length,
    totalConsumables: consumables.length,
    items: consumables,
  });
  write('master-weaponSkills.json', {
    version: '2.0.0',
    generated,
    totalWeaponTypes: weaponTypes.length,
    totalSkills: count.skills,
    weaponTypes,
  });
  const config = join(REPO, 'catalog-src/catalog.config.json');
  if (existsSync(config)) copyFileSync(config, join(out, 'catalog.config.json'));
  return { out, counts: count };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [out, records, seed] = process.argv.slice(2);
  const res = generateCatalog({
    out: out ? resolve(out) : undefined,
    records: records ? Number(records) : undefined,
    seed: seed ? Number(seed) : undefined,
  });
  console.log(`generated ${Object.values(res.counts).reduce((a, b) => a + b, 0)} records into ${res.out}`, res.counts);
}
