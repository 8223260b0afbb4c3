import type { LabelTranslations } from "../../access/label-translations";

/** A role as the access page's loader lists it. */
export type RoleRow = {
  id: string;
  name: string;
  label: string;
  /** The label per language an admin wrote. */
  translations: LabelTranslations;
  /** What it is for, as an admin wrote it. */
  description: string;
  all: boolean;
  system: boolean;
  permissions: string[];
  users: number;
  /** The viewer may change it (it holds nothing they lack and is not Super Admin). */
  editable: boolean;
  /** Null: nobody may ask for it; else for at most this many hours. */
  maxRequestHours: number | null;
  /** Where it may be used from; empty: anywhere. */
  allowedNetworks: string[];
};

export type MenuRow = {
  id: string;
  title: string;
  url: string;
  icon: string;
  required_permission: string;
  translations: LabelTranslations;
  /** 1: in the editor, in nobody's sidebar. */
  hidden: number;
};
