<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="tilepath" tilewidth="32" tileheight="32" tilecount="11" columns="11">
 <image source="../tiles.png" width="352" height="32"/>
 <tile id="0" type="floor">
  <properties>
   <property name="cost" type="int" value="1"/>
  </properties>
 </tile>
 <tile id="1" type="wall">
  <properties>
   <property name="walkable" type="bool" value="false"/>
  </properties>
 </tile>
 <tile id="2" type="start">
  <properties>
   <property name="marker" value="start"/>
  </properties>
 </tile>
 <tile id="3" type="goal">
  <properties>
   <property name="marker" value="goal"/>
  </properties>
 </tile>
 <tile id="7" type="grass">
  <properties>
   <property name="cost" type="int" value="2"/>
  </properties>
 </tile>
 <tile id="8" type="mud">
  <properties>
   <property name="cost" type="int" value="5"/>
  </properties>
 </tile>
 <tile id="9" type="water">
  <properties>
   <property name="cost" type="int" value="10"/>
  </properties>
 </tile>
 <tile id="10" type="trees">
  <properties>
   <property name="terrain" value="trees"/>
  </properties>
 </tile>
</tileset>
